package dev.outboxkit.samples.servlet;

import dev.outboxkit.testkit.Flavor;

class PostgresTomcatDistributionServletSampleTest extends TomcatDistributionServletSampleTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
