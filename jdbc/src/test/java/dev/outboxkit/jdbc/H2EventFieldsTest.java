package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class H2EventFieldsTest extends EventFieldsContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.H2;
  }
}
