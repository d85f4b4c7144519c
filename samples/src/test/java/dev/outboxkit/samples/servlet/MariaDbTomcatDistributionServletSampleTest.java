package dev.outboxkit.samples.servlet;

import dev.outboxkit.testkit.Flavor;

class MariaDbTomcatDistributionServletSampleTest extends TomcatDistributionServletSampleTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
