package dev.outboxkit.jdbc;

import dev.outboxkit.jdbc.dialect.ClaimCapability;
import dev.outboxkit.jdbc.dialect.SqlDialect;

/**
 * The relay suite with the claim chosen by capability, not by vendor: PostgreSQL claiming without
 * SKIP LOCKED (CONDITIONAL_UPDATE).
 */
class PostgresConditionalClaimRelayTest extends PostgresRelayTest {
  private static final SqlDialect DIALECT =
      Dialect.POSTGRESQL.preset().toBuilder("POSTGRESQL, CONDITIONAL_UPDATE")
          .claim(ClaimCapability.CONDITIONAL_UPDATE)
          .build();

  @Override
  protected SqlDialect relayDialect() {
    return DIALECT;
  }
}
