package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MariaDbRelayStragglersTest extends RelayStragglersContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
