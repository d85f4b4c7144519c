package dev.outboxkit.faults;

import dev.outboxkit.testkit.Flavor;

class PostgresSlowWebhookTest extends SlowWebhookTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
