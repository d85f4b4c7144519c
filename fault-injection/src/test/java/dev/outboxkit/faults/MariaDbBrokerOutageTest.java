package dev.outboxkit.faults;

import dev.outboxkit.testkit.Flavor;

class MariaDbBrokerOutageTest extends BrokerOutageTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
