package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MariaDbAppendTest extends AppendContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
