package dev.outboxkit.jms;

import dev.outboxkit.testkit.Flavor;

class MariaDbJmsRelayTest extends JmsRelayContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
