package dev.outboxkit.faults;

import dev.outboxkit.testkit.Flavor;

class PostgresNetworkBlackHoleTest extends NetworkBlackHoleTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
