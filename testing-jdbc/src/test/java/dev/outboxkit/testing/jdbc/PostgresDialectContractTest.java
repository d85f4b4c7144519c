package dev.outboxkit.testing.jdbc;

import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.testkit.Flavor;

/** The dialect contract kit on a real PostgreSQL server, with the POSTGRESQL preset. */
class PostgresDialectContractTest extends FlavorDialectContract {
  PostgresDialectContractTest() {
    super(Flavor.POSTGRES, Dialect.POSTGRESQL.preset());
  }
}
