package dev.outboxkit.faults;

import dev.outboxkit.testkit.Flavor;

class PostgresDatabaseOutageTest extends DatabaseOutageTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
