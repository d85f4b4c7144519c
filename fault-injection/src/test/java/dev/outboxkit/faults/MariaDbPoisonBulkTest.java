package dev.outboxkit.faults;

import dev.outboxkit.testkit.Flavor;

class MariaDbPoisonBulkTest extends PoisonBulkTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
