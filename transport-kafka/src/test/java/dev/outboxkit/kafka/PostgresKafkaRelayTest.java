package dev.outboxkit.kafka;

import dev.outboxkit.testkit.Flavor;

class PostgresKafkaRelayTest extends KafkaRelayContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
