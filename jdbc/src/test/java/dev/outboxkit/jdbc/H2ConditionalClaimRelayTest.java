package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.dialect.ClaimCapability;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import dev.outboxkit.testing.RecordingTransport;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestFlavors;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The relay suite with the claim chosen by capability, not by vendor: H2 claiming without SKIP
 * LOCKED (CONDITIONAL_UPDATE).
 */
class H2ConditionalClaimRelayTest extends RelayContractTest {
  private static final SqlDialect DIALECT =
      Dialect.H2.preset().toBuilder("H2, CONDITIONAL_UPDATE")
          .claim(ClaimCapability.CONDITIONAL_UPDATE)
          .build();

  /** Hides {@link DatabaseTest#flavors()}: the dialect is H2's, so it runs there alone. */
  static List<Flavor> flavors() {
    return TestFlavors.of(Flavor.H2);
  }

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
