package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MySqlRelayTest extends RelayContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MYSQL;
  }
}
