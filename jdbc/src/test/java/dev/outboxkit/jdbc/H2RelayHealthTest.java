package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class H2RelayHealthTest extends RelayHealthContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.H2;
  }
}
