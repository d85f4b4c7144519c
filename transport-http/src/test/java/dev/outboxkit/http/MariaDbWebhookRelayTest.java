package dev.outboxkit.http;

import dev.outboxkit.testkit.Flavor;

class MariaDbWebhookRelayTest extends WebhookRelayContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
