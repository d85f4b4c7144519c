package dev.outboxkit.samples.servlet;

import dev.outboxkit.testkit.Flavor;

class PostgresServletSampleTest extends ServletSampleContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
