package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class PostgresAppendTest extends AppendContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
