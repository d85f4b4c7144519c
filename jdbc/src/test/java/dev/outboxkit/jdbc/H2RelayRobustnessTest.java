package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class H2RelayRobustnessTest extends RelayRobustnessContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.H2;
  }
}
