package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class PostgresRelayStragglersTest extends RelayStragglersContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
