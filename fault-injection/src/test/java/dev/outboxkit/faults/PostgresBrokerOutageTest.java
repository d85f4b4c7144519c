package dev.outboxkit.faults;

import dev.outboxkit.testkit.Flavor;

class PostgresBrokerOutageTest extends BrokerOutageTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
