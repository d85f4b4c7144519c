package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MySqlStatementColumnsTest extends StatementColumnsContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MYSQL;
  }
}
