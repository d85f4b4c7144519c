package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class PostgresInboxTest extends InboxContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
