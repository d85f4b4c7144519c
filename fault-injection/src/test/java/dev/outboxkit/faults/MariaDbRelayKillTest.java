package dev.outboxkit.faults;

import dev.outboxkit.testkit.Flavor;

class MariaDbRelayKillTest extends RelayKillTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
