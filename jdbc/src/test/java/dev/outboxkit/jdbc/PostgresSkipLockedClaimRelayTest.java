package dev.outboxkit.jdbc;

import dev.outboxkit.jdbc.dialect.ClaimCapability;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestFlavors;
import java.util.List;

/**
 * The relay suite with the claim chosen by capability, not by vendor: PostgreSQL claiming in steps
 * (SKIP_LOCKED), as MySQL does.
 */
class PostgresSkipLockedClaimRelayTest extends RelayContractTest {
  private static final SqlDialect DIALECT =
      Dialect.POSTGRESQL.preset().toBuilder("POSTGRESQL, SKIP_LOCKED")
          .claim(ClaimCapability.SKIP_LOCKED)
          .build();

  /** Hides {@link DatabaseTest#flavors()}: the dialect is PostgreSQL's, so it runs there alone. */
  static List<Flavor> flavors() {
    return TestFlavors.of(Flavor.POSTGRES);
  }

  @Override
  protected SqlDialect relayDialect() {
    return DIALECT;
  }
}
