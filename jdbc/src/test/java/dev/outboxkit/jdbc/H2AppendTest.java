package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class H2AppendTest extends AppendContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.H2;
  }
}
