package dev.outboxkit.kafka;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.Transport;
import dev.outboxkit.testing.TransportContract;
import dev.outboxkit.testkit.Ports;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import dev.outboxkit.testkit.kafka.TopicReader;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;

/** The transport contract kit against the shared in-JVM broker. */
class KafkaTransportContractTest extends TransportContract {
  private static final String TYPE = KafkaTransportTest.unique("Contract");
  private static final String TOPIC = "outbox.event." + TYPE;
  private static KafkaTestBroker broker;

  @BeforeAll
  static void createTopic() {
    broker = KafkaTestBroker.shared();
    broker.createTopic(TOPIC, 3);
  }

  @Override
  protected Transport newTransport() {
    return KafkaTransport.builder(KafkaTransportTest.config(broker))
        .sendTimeout(Duration.ofSeconds(15))
        .build();
  }

  @Override
  protected Transport newUnreachableTransport() throws IOException {
    Map<String, Object> config = new HashMap<>();
    config.put("bootstrap.servers", "127.0.0.1:" + Ports.unused());
    config.put("delivery.timeout.ms", "2000");
    config.put("request.timeout.ms", "1000");
    config.put("max.block.ms", "1000");
    return KafkaTransport.builder(config).sendTimeout(Duration.ofSeconds(3)).build();
  }

  @Override
  protected List<UUID> receivedIds() {
    return KafkaTransportTest.eventIds(TopicReader.readAll(broker.bootstrapServers(), TOPIC));
  }

  @Override
  protected OutboxEvent event(String aggregateId, int n) {
    return OutboxEvent.builder(TYPE, aggregateId, "Tested")
        .payload("{\"n\":" + n + "}")
        .header("n", Integer.toString(n))
        .build();
  }

  /** Above the producer's max.request.size (1 MiB): refused before it is sent, for good. */
  @Override
  protected OutboxEvent refusedEvent(String aggregateId) {
    return OutboxEvent.builder(TYPE, aggregateId, "TooLarge")
        .payload(new byte[2 * 1024 * 1024], "application/octet-stream")
        .build();
  }
}
