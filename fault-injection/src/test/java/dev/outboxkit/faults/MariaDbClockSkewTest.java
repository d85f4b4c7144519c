package dev.outboxkit.faults;

import dev.outboxkit.testkit.Flavor;

class MariaDbClockSkewTest extends ClockSkewTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
