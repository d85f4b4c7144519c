package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class H2StatementColumnsTest extends StatementColumnsContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.H2;
  }
}
