package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MariaDbStatementColumnsTest extends StatementColumnsContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
