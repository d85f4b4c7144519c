package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MySqlRelayRobustnessTest extends RelayRobustnessContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MYSQL;
  }
}
