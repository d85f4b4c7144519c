package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MySqlRelayStragglersTest extends RelayStragglersContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MYSQL;
  }
}
