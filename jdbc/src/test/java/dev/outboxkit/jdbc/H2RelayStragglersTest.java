package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class H2RelayStragglersTest extends RelayStragglersContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.H2;
  }
}
