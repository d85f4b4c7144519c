package dev.outboxkit.micrometer;

import dev.outboxkit.testkit.Flavor;

class H2OutboxMetricsTest extends OutboxMetricsContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.H2;
  }
}
