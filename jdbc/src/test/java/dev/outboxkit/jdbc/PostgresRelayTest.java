package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class PostgresRelayTest extends RelayContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
