package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MariaDbEventFieldsTest extends EventFieldsContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
