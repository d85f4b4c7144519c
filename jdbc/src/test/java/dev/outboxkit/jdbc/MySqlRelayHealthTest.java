package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MySqlRelayHealthTest extends RelayHealthContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MYSQL;
  }
}
