package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class PostgresRetentionTest extends RetentionContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
