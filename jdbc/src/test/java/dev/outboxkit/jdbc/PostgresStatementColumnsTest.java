package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class PostgresStatementColumnsTest extends StatementColumnsContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
