package dev.outboxkit.faults;

import dev.outboxkit.testkit.Flavor;

class PostgresClockSkewTest extends ClockSkewTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
