package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class PostgresRelayRobustnessTest extends RelayRobustnessContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
