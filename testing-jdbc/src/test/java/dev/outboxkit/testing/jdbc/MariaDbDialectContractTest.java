package dev.outboxkit.testing.jdbc;

import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.testkit.Flavor;

/** The dialect contract kit on a real MariaDB server, with the MARIADB preset. */
class MariaDbDialectContractTest extends FlavorDialectContract {
  MariaDbDialectContractTest() {
    super(Flavor.MARIADB, Dialect.MARIADB.preset());
  }
}
