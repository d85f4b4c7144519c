package dev.outboxkit.jdbc;

import dev.outboxkit.jdbc.dialect.ClaimCapability;
import dev.outboxkit.jdbc.dialect.SqlDialect;

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
}
