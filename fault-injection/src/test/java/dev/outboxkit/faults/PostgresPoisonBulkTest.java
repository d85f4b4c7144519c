package dev.outboxkit.faults;

import dev.outboxkit.testkit.Flavor;

class PostgresPoisonBulkTest extends PoisonBulkTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
