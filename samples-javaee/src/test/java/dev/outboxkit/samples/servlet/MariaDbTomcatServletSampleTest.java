package dev.outboxkit.samples.servlet;

import dev.outboxkit.testkit.Flavor;

class MariaDbTomcatServletSampleTest extends TomcatServletSampleContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
