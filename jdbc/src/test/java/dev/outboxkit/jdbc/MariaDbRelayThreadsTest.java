package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MariaDbRelayThreadsTest extends RelayThreadsContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
