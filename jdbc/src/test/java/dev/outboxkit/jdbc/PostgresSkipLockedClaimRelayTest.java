package dev.outboxkit.jdbc;

import dev.outboxkit.jdbc.dialect.ClaimCapability;
import dev.outboxkit.jdbc.dialect.SqlDialect;

/**
 * The relay suite with the claim chosen by capability, not by vendor: PostgreSQL claiming in steps
 * (SKIP_LOCKED), as MySQL does.
 */
class PostgresSkipLockedClaimRelayTest extends PostgresRelayTest {
  private static final SqlDialect DIALECT =
      Dialect.POSTGRESQL.preset().toBuilder("POSTGRESQL, SKIP_LOCKED")
          .claim(ClaimCapability.SKIP_LOCKED)
          .build();

  @Override
  protected SqlDialect relayDialect() {
    return DIALECT;
  }
}
