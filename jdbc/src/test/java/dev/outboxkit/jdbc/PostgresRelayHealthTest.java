package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class PostgresRelayHealthTest extends RelayHealthContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
