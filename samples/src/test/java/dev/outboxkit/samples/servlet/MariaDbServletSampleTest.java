package dev.outboxkit.samples.servlet;

import dev.outboxkit.testkit.Flavor;

class MariaDbServletSampleTest extends ServletSampleContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
