package dev.outboxkit.faults;

import dev.outboxkit.testkit.Flavor;

class MariaDbDatabaseCrashTest extends DatabaseCrashTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }

  @Override
  protected DatabaseCrashServer newServer() {
    return new DatabaseCrashMariaDbServer();
  }
}
