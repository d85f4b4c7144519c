package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MariaDbRelayHealthTest extends RelayHealthContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
