package dev.outboxkit.http;

import dev.outboxkit.testkit.Flavor;

class PostgresWebhookRelayTest extends WebhookRelayContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
