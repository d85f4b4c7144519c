package dev.outboxkit.faults;

import dev.outboxkit.testkit.Flavor;

class MariaDbSlowWebhookTest extends SlowWebhookTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
