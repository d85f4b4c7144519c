package dev.outboxkit.jdbc;

import dev.outboxkit.jdbc.dialect.ClaimCapability;
import dev.outboxkit.jdbc.dialect.SqlDialect;

/**
 * The relay suite with the claim chosen by capability, not by vendor: MariaDB claiming without SKIP
 * LOCKED (CONDITIONAL_UPDATE).
 */
class MariaDbConditionalClaimRelayTest extends MariaDbRelayTest {
  private static final SqlDialect DIALECT =
      Dialect.MARIADB.preset().toBuilder("MARIADB, CONDITIONAL_UPDATE")
          .claim(ClaimCapability.CONDITIONAL_UPDATE)
          .build();

  @Override
  protected SqlDialect relayDialect() {
    return DIALECT;
  }
}
