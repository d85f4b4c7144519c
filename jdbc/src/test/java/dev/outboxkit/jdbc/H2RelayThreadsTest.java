package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class H2RelayThreadsTest extends RelayThreadsContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.H2;
  }
}
