package dev.outboxkit.faults;

import dev.outboxkit.testkit.Flavor;

class MariaDbNetworkBlackHoleTest extends NetworkBlackHoleTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
