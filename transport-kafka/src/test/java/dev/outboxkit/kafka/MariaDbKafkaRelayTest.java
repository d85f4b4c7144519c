package dev.outboxkit.kafka;

import dev.outboxkit.testkit.Flavor;

class MariaDbKafkaRelayTest extends KafkaRelayContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
