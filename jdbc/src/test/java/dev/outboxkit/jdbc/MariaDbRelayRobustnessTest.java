package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MariaDbRelayRobustnessTest extends RelayRobustnessContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
