package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MySqlEventFieldsTest extends EventFieldsContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MYSQL;
  }
}
