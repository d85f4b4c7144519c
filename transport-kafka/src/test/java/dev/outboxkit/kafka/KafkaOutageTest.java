package dev.outboxkit.kafka;

import static dev.outboxkit.kafka.KafkaTransportTest.event;
import static dev.outboxkit.kafka.KafkaTransportTest.unique;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.SendResult.Status;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import dev.outboxkit.testkit.kafka.TopicReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A broker that goes away and comes back: its own instance, so other tests are not disturbed. */
class KafkaOutageTest {
  private static KafkaTestBroker broker;
  private KafkaTransport transport;

  @BeforeAll
  static void startBroker() {
    broker = KafkaTestBroker.startNew("outage");
  }

  @AfterAll
  static void stopBroker() {
    broker.close();
  }

  @AfterEach
  void closeTransport() {
    broker.start(); // a failed test must not leave it down for the next one
    if (transport != null) {
      transport.close();
    }
  }

  @Test
  void sendBatch_reports_unavailable_while_broker_is_down_and_delivers_after_restart() {
    String type = unique("Down");
    String topic = KafkaTransportTest.typeTopic(broker, type, 2);
    transport = transport(null);
    assertThat(transport.send(OutboxMessage.of(event(type, "warm", "Warm", 10), 1)))
        .isEqualTo(SendResult.delivered());
    List<OutboxEvent> events = events(type, 50);

    broker.stop();
    List<SendResult> whileDown = transport.sendBatch(messages(events, 1));

    assertThat(whileDown).extracting(SendResult::status).containsOnly(Status.UNAVAILABLE);
    assertThat(whileDown.get(0).reason().orElseThrow()).startsWith("Kafka unreachable");

    broker.start();
    Set<UUID> delivered = sendUntilDelivered(events, 2);

    assertThat(delivered).hasSize(50);
    assertThat(idsOnBroker(topic)).containsAll(delivered);
  }

  @Test
  void sendBatch_reports_only_acknowledged_events_delivered_when_broker_stops_mid_batch() {
    String type = unique("Mid");
    String topic = KafkaTransportTest.typeTopic(broker, type, 2);
    List<OutboxEvent> events = events(type, 3000);
    UUID trigger = events.get(1500).id();
    // The router runs on the sending thread, once per event, in batch order: stopping the broker
    // from it cuts the batch in the middle, with half the records already in the producer.
    AtomicBoolean stopped = new AtomicBoolean();
    transport =
        transport(
            e -> {
              if (e.id().equals(trigger) && stopped.compareAndSet(false, true)) {
                broker.stop();
              }
              return null;
            });
    assertThat(transport.send(OutboxMessage.of(event(type, "warm", "Warm", 10), 1)))
        .isEqualTo(SendResult.delivered());

    List<SendResult> results = transport.sendBatch(messages(events, 1));

    Set<UUID> reportedDelivered = new java.util.HashSet<>();
    for (int i = 0; i < events.size(); i++) {
      assertThat(results.get(i).status()).isIn(Status.DELIVERED, Status.UNAVAILABLE);
      if (results.get(i).isDelivered()) {
        reportedDelivered.add(events.get(i).id());
      }
    }
    assertThat(results.subList(1500, 3000))
        .extracting(SendResult::status)
        .containsOnly(Status.UNAVAILABLE);

    broker.start();
    // Nothing reported delivered is missing from the broker.
    assertThat(idsOnBroker(topic)).containsAll(reportedDelivered);

    List<OutboxEvent> rest =
        events.stream()
            .filter(e -> !reportedDelivered.contains(e.id()))
            .collect(Collectors.toList());
    sendUntilDelivered(rest, 2);
    assertThat(idsOnBroker(topic)).containsAll(events.stream().map(OutboxEvent::id).toList());
  }

  /**
   * Resends what is not yet delivered, as the relay would; the first attempts after a restart may
   * still meet a broker that is electing leaders.
   */
  private Set<UUID> sendUntilDelivered(List<OutboxEvent> events, int firstAttempt) {
    Set<UUID> delivered = new java.util.HashSet<>();
    List<OutboxEvent> pending = new ArrayList<>(events);
    for (int attempt = firstAttempt; attempt < firstAttempt + 5 && !pending.isEmpty(); attempt++) {
      List<SendResult> results = transport.sendBatch(messages(pending, attempt));
      List<OutboxEvent> next = new ArrayList<>();
      for (int i = 0; i < pending.size(); i++) {
        assertThat(results.get(i).status()).isNotEqualTo(Status.REJECT);
        if (results.get(i).isDelivered()) {
          delivered.add(pending.get(i).id());
        } else {
          next.add(pending.get(i));
        }
      }
      pending = next;
    }
    assertThat(pending).as("events still not delivered after the restart").isEmpty();
    return delivered;
  }

  private static KafkaTransport transport(java.util.function.Function<OutboxEvent, String> router) {
    Map<String, Object> config = new HashMap<>();
    config.put("bootstrap.servers", broker.bootstrapServers());
    config.put("delivery.timeout.ms", "4000");
    config.put("request.timeout.ms", "2000");
    config.put("max.block.ms", "2000");
    config.put("reconnect.backoff.max.ms", "500");
    KafkaTransport.Builder builder =
        KafkaTransport.builder(config).name("outage-test").sendTimeout(Duration.ofSeconds(10));
    if (router != null) {
      builder.topicRouter(router);
    }
    return builder.build();
  }

  private static List<OutboxEvent> events(String type, int count) {
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      events.add(event(type, "agg-" + (i % 20), "E" + i, 200));
    }
    return events;
  }

  private static List<OutboxMessage> messages(List<OutboxEvent> events, int attempt) {
    return events.stream().map(e -> OutboxMessage.of(e, attempt)).collect(Collectors.toList());
  }

  private static Set<UUID> idsOnBroker(String topic) {
    return Set.copyOf(
        KafkaTransportTest.eventIds(TopicReader.readAll(broker.bootstrapServers(), topic)));
  }
}
