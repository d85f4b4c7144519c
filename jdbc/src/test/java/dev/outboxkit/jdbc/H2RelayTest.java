package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class H2RelayTest extends RelayContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.H2;
  }
}
