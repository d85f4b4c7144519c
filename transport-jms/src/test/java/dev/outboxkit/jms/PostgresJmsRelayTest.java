package dev.outboxkit.jms;

import dev.outboxkit.testkit.Flavor;

class PostgresJmsRelayTest extends JmsRelayContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
