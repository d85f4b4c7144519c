package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class H2InboxTest extends InboxContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.H2;
  }
}
