package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MySqlRetentionTest extends RetentionContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MYSQL;
  }
}
