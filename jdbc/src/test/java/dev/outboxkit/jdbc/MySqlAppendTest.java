package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MySqlAppendTest extends AppendContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MYSQL;
  }
}
