package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MariaDbInboxTest extends InboxContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
