package dev.outboxkit.faults;

import dev.outboxkit.testkit.Flavor;

class PostgresDatabaseCrashTest extends DatabaseCrashTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }

  @Override
  protected DatabaseCrashServer newServer() {
    return new DatabaseCrashPostgresServer();
  }
}
