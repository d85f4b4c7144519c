package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.dialect.ClaimCapability;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import dev.outboxkit.testing.RecordingTransport;
import org.junit.jupiter.api.Test;

/**
 * The relay suite with the claim chosen by capability, not by vendor: H2 claiming without SKIP
 * LOCKED (CONDITIONAL_UPDATE).
 */
class H2ConditionalClaimRelayTest extends H2RelayTest {
  private static final SqlDialect DIALECT =
      Dialect.H2.preset().toBuilder("H2, CONDITIONAL_UPDATE")
          .claim(ClaimCapability.CONDITIONAL_UPDATE)
          .build();

  @Override
  protected SqlDialect relayDialect() {
    return DIALECT;
  }

  /**
   * Oracle takes at most 1,000 values in an IN list: a larger batch is marked and read in parts.
   */
  @Test
  void a_batch_larger_than_one_in_list_is_claimed_in_parts() throws Exception {
    append(2_500, i -> event("a" + i, i));
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay = relay(transport, "large").batchSize(2_500).ordered(false).build()) {
      assertThat(relay.runOnce()).isEqualTo(2_500);
    }
    assertThat(transport.deliveredEvents()).hasSize(2_500);
    assertThat(countStatus(EventStatus.PUBLISHED)).isEqualTo(2_500);
  }
}
