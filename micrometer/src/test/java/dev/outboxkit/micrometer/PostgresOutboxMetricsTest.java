package dev.outboxkit.micrometer;

import dev.outboxkit.testkit.Flavor;

class PostgresOutboxMetricsTest extends OutboxMetricsContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
