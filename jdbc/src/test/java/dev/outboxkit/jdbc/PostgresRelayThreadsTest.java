package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class PostgresRelayThreadsTest extends RelayThreadsContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
