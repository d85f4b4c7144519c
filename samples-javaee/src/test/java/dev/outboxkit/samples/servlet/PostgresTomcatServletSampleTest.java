package dev.outboxkit.samples.servlet;

import dev.outboxkit.testkit.Flavor;

class PostgresTomcatServletSampleTest extends TomcatServletSampleContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
