package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MariaDbRelayTest extends RelayContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
