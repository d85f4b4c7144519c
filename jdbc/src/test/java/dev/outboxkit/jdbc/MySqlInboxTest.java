package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MySqlInboxTest extends InboxContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MYSQL;
  }
}
