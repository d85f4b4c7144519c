package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class PostgresEventFieldsTest extends EventFieldsContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
