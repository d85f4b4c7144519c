package dev.outboxkit.faults;

import dev.outboxkit.testkit.Flavor;

class MariaDbDatabaseOutageTest extends DatabaseOutageTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
