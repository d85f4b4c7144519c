package dev.outboxkit.testing.jdbc;

import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.testkit.Flavor;

/**
 * The dialect contract kit on a real MySQL server (embedded from Maven when no URL is set), with
 * the shipped MYSQL dialect.
 */
class MySqlDialectContractTest extends FlavorDialectContract {
  MySqlDialectContractTest() {
    super(Flavor.MYSQL, Dialect.MYSQL.preset());
  }
}
