package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MariaDbRetentionTest extends RetentionContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
