package dev.outboxkit.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.SendResult.Status;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import dev.outboxkit.testkit.kafka.TopicReader;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The transport against a real broker (shared by the test JVM). */
class KafkaTransportTest {
  private static KafkaTestBroker broker;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeAll
  static void startBroker() {
    broker = KafkaTestBroker.shared();
  }

  @AfterEach
  void closeTransports() throws Exception {
    for (AutoCloseable c : toClose) {
      c.close();
    }
  }

  @Test
  void sendBatch_delivers_key_value_and_headers_when_broker_is_up() {
    String type = unique("Order");
    String topic = typeTopic(broker, type, 1);
    Instant occurredAt = Instant.parse("2025-01-31T12:13:01.123456Z");
    OutboxEvent event =
        OutboxEvent.builder(type, "order-1", "OrderPlaced")
            .payload("{\"total\": 42}")
            .header("correlation-id", "c-7")
            .header("Id", "case differs from the reserved one, so it is the user's")
            .tenant("acme")
            .schemaVersion(2)
            .occurredAt(occurredAt)
            .build();

    List<SendResult> results = transport().sendBatch(List.of(OutboxMessage.of(event, 1)));

    assertThat(results).containsExactly(SendResult.delivered());
    List<ConsumerRecord<String, byte[]>> records = readAll(topic);
    assertThat(records).hasSize(1);
    ConsumerRecord<String, byte[]> r = records.get(0);
    assertThat(r.key()).isEqualTo("order-1");
    assertThat(new String(r.value(), UTF_8)).isEqualTo("{\"total\": 42}");
    assertThat(headers(r))
        .containsExactly(
            Map.entry("id", event.id().toString()),
            Map.entry("outbox-event-type", "OrderPlaced"),
            Map.entry("outbox-aggregate-type", type),
            Map.entry("outbox-schema-version", "2"),
            Map.entry("content-type", "application/json"),
            Map.entry("outbox-occurred-at", "2025-01-31T12:13:01.123456Z"),
            Map.entry("outbox-tenant", "acme"),
            Map.entry("correlation-id", "c-7"),
            Map.entry("Id", "case differs from the reserved one, so it is the user's"));
    assertThat(KafkaEvents.eventId(r)).contains(event.id());
    assertThat(KafkaEvents.eventType(r)).contains("OrderPlaced");
    assertThat(KafkaEvents.aggregateType(r)).contains(type);
    assertThat(KafkaEvents.schemaVersion(r)).hasValue(2);
    assertThat(KafkaEvents.occurredAt(r)).contains(occurredAt);
    assertThat(KafkaEvents.aggregateVersion(r)).as("appended without a version").isEmpty();
  }

  @Test
  void sendBatch_carries_the_aggregate_version_when_the_event_has_one() {
    String type = unique("Order");
    String topic = typeTopic(broker, type, 1);
    OutboxEvent event =
        OutboxEvent.builder(type, "order-1", "OrderPlaced")
            .payload("{}")
            .aggregateVersion(9_000_000_000L)
            .build();

    assertThat(transport().sendBatch(List.of(OutboxMessage.of(event, 1))))
        .containsExactly(SendResult.delivered());

    ConsumerRecord<String, byte[]> r = readAll(topic).get(0);
    assertThat(headers(r)).containsEntry("outbox-aggregate-version", "9000000000");
    assertThat(KafkaEvents.aggregateVersion(r)).hasValue(9_000_000_000L);
  }

  @Test
  void sendBatch_keeps_append_order_per_aggregate_when_aggregates_share_partitions() {
    String type = unique("Cart");
    String topic = typeTopic(broker, type, 3);
    List<OutboxMessage> batch = new ArrayList<>();
    for (int seq = 0; seq < 40; seq++) {
      for (int aggregate = 0; aggregate < 10; aggregate++) {
        batch.add(message(event(type, "cart-" + aggregate, "seq-" + seq, 10)));
      }
    }

    List<SendResult> results = transport().sendBatch(batch);

    assertThat(results).hasSize(400).allMatch(SendResult::isDelivered);
    Map<String, List<String>> seqByKey = new LinkedHashMap<>();
    Map<String, Set<Integer>> partitionsByKey = new HashMap<>();
    for (ConsumerRecord<String, byte[]> r : readAll(topic)) {
      seqByKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(eventType(r));
      partitionsByKey.computeIfAbsent(r.key(), k -> new java.util.HashSet<>()).add(r.partition());
    }
    assertThat(seqByKey).hasSize(10);
    List<String> appendOrder = new ArrayList<>();
    for (int seq = 0; seq < 40; seq++) {
      appendOrder.add("seq-" + seq);
    }
    seqByKey.values().forEach(seqs -> assertThat(seqs).isEqualTo(appendOrder));
    partitionsByKey.values().forEach(p -> assertThat(p).hasSize(1));
  }

  @Test
  void send_routes_by_router_then_destination_then_default_rule() {
    String routedType = unique("Routed");
    String routedTopic = unique("custom-topic");
    String destination = unique("explicit-destination");
    broker.createTopic(routedTopic, 1);
    broker.createTopic(destination, 1);
    KafkaTransport transport =
        register(
            KafkaTransport.builder(config(broker))
                // The router sees every event; null falls back to the destination, then the rule.
                .topicRouter(
                    e ->
                        e.aggregateType().equals(routedType) && e.destination().isEmpty()
                            ? routedTopic
                            : e.aggregateType().equals("Overridden") ? routedTopic : null)
                .sendTimeout(Duration.ofSeconds(15))
                .build());
    OutboxEvent routed = event(routedType, "r-1", "Happened", 10);
    OutboxEvent explicit =
        OutboxEvent.builder(routedType, "r-2", "Happened")
            .payload("{}")
            .destination(destination)
            .build();
    OutboxEvent other = event("Invoice", "i-1", "Happened", 10);
    OutboxEvent overridden =
        OutboxEvent.builder("Overridden", "o-1", "Happened")
            .payload("{}")
            .destination(destination)
            .build();

    assertThat(transport.topicOf(routed)).isEqualTo(routedTopic);
    assertThat(transport.topicOf(explicit)).isEqualTo(destination);
    assertThat(transport.topicOf(overridden)).as("the router wins").isEqualTo(routedTopic);
    assertThat(transport.topicOf(other)).isEqualTo("outbox.event.Invoice");
    assertThat(transport.sendBatch(List.of(message(routed), message(explicit))))
        .containsExactly(SendResult.delivered(), SendResult.delivered());
    assertThat(readAll(routedTopic)).extracting(ConsumerRecord::key).containsExactly("r-1");
    assertThat(readAll(destination)).extracting(ConsumerRecord::key).containsExactly("r-2");
  }

  @Test
  void sendBatch_rejects_oversized_event_and_delivers_others_when_it_exceeds_max_request_size() {
    String type = unique("Upload");
    String topic = typeTopic(broker, type, 1);
    OutboxEvent a1 = event(type, "a", "A1", 100);
    OutboxEvent b1 = event(type, "b", "B1", 2 * 1024 * 1024); // above max.request.size (1 MiB)
    OutboxEvent c1 = event(type, "c", "C1", 100);
    OutboxEvent b2 = event(type, "b", "B2", 100);

    List<SendResult> results =
        transport().sendBatch(List.of(message(a1), message(b1), message(c1), message(b2)));

    assertThat(results.get(0)).isEqualTo(SendResult.delivered());
    assertThat(results.get(1).status()).isEqualTo(Status.REJECT);
    assertThat(results.get(1).reason().orElseThrow())
        .contains("RecordTooLargeException")
        .contains("max.request.size");
    assertThat(results.get(2)).isEqualTo(SendResult.delivered());
    // B2 must not overtake B1: it is held back, not sent.
    assertThat(results.get(3).status()).isEqualTo(Status.RETRY);
    assertThat(results.get(3).reason().orElseThrow()).contains(b1.id().toString());
    assertThat(readAll(topic)).extracting(this::eventType).containsExactly("A1", "C1");
  }

  @Test
  void sendBatch_rejects_event_the_broker_refuses_as_too_large_and_delivers_the_others() {
    String type = unique("Blob");
    String topic = typeTopic(broker, type, 1, Map.of("max.message.bytes", "20000"));
    OutboxEvent a1 = event(type, "a", "A1", 100);
    OutboxEvent b1 = event(type, "b", "B1", 50_000); // below max.request.size, above the topic's
    OutboxEvent c1 = event(type, "c", "C1", 100);

    List<SendResult> results =
        transport().sendBatch(List.of(message(a1), message(b1), message(c1)));

    assertThat(results.get(0)).isEqualTo(SendResult.delivered());
    assertThat(results.get(1).status()).isEqualTo(Status.REJECT);
    assertThat(results.get(1).reason().orElseThrow()).contains("RecordTooLargeException");
    assertThat(results.get(2)).isEqualTo(SendResult.delivered());
    assertThat(readAll(topic)).extracting(this::eventType).containsExactly("A1", "C1");
  }

  @Test
  void send_answers_missing_topic_as_that_topics_outage_until_it_is_created()
      throws InterruptedException {
    String type = unique("Ghost");
    String existingType = unique("Real");
    broker.createTopic("outbox.event." + existingType, 1);
    Map<String, Object> config = config(broker);
    config.put("max.block.ms", "1500");
    KafkaTransport transport = transport(config);

    List<SendResult> results =
        transport.sendBatch(
            List.of(
                message(event(type, "g", "G1", 10)),
                message(event(existingType, "r", "R1", 10)),
                message(event(type, "h", "H1", 10))));

    assertThat(results.get(0).status()).isEqualTo(Status.UNAVAILABLE);
    assertThat(results.get(0).scope()).contains("kafka topic outbox.event." + type);
    assertThat(results.get(0).reason().orElseThrow())
        .contains("topic does not exist")
        .contains("outbox.event." + type);
    assertThat(results.get(1)).isEqualTo(SendResult.delivered());
    assertThat(results.get(2)).isEqualTo(results.get(0));

    broker.createTopic("outbox.event." + type, 1);
    // Until its next check the topic is answered from memory; then its events go through.
    SendResult again = null;
    for (int i = 0; i < 50 && !SendResult.delivered().equals(again); i++) {
      again = transport.send(message(event(type, "g", "G2", 10)));
      Thread.sleep(100);
    }
    assertThat(again).isEqualTo(SendResult.delivered());
  }

  @Test
  void send_rejects_event_when_topic_name_is_illegal() {
    assertRejected(
        orderPlaced().destination("orders for acme!"), "invalid topic name 'orders for acme!'");
  }

  @Test
  void send_rejects_event_when_a_user_header_takes_a_reserved_name() {
    assertRejected(orderPlaced().header("id", "not the event id"), "header 'id' is reserved");
  }

  private static OutboxEvent.Builder orderPlaced() {
    return OutboxEvent.builder("Order", "o-1", "OrderPlaced").payload("{}");
  }

  /** Sends the event alone: the transport rejects it, giving a reason that contains the part. */
  private void assertRejected(OutboxEvent.Builder event, String reasonPart) {
    SendResult result = transport().send(message(event.build()));

    assertThat(result.status()).isEqualTo(Status.REJECT);
    assertThat(result.reason().orElseThrow()).contains(reasonPart);
  }

  @Test
  void sendBatch_delivers_when_producer_settings_are_explicitly_idempotent() {
    String type = unique("Idem");
    String topic = typeTopic(broker, type, 2);
    Map<String, Object> config = config(broker);
    config.put("enable.idempotence", true);
    config.put("acks", "all");
    config.put("max.in.flight.requests.per.connection", 5);
    config.put("retries", Integer.MAX_VALUE);
    config.put("compression.type", "lz4");
    KafkaTransport transport = transport(config);
    List<OutboxMessage> batch = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      batch.add(message(event(type, "k" + (i % 7), "E" + i, 200)));
    }

    assertThat(transport.sendBatch(batch)).allMatch(SendResult::isDelivered);
    assertThat(readAll(topic)).hasSize(50);
  }

  @Test
  void sendBatch_commits_one_transaction_per_batch_when_producer_is_transactional() {
    String type = unique("Tx");
    String topic = typeTopic(broker, type, 2);
    Map<String, Object> config = config(broker);
    config.put("transactional.id", unique("outboxkit-test-tx"));
    KafkaTransport transport = transport(config);
    List<OutboxMessage> first = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      first.add(message(event(type, "k" + (i % 3), "First" + i, 100)));
    }

    assertThat(transport.sendBatch(first)).allMatch(SendResult::isDelivered);
    assertThat(TopicReader.readAll(broker.bootstrapServers(), topic, true, 20)).hasSize(20);

    // One oversized event fails the transaction: the others are rolled back, not delivered.
    OutboxEvent ok1 = event(type, "x", "Ok1", 100);
    OutboxEvent big = event(type, "y", "Big", 2 * 1024 * 1024);
    OutboxEvent ok2 = event(type, "z", "Ok2", 100);
    List<SendResult> second =
        transport.sendBatch(List.of(message(ok1), message(big), message(ok2)));
    assertThat(second.get(1).status()).isEqualTo(Status.REJECT);
    assertThat(second.get(0).status()).isEqualTo(Status.RETRY);
    assertThat(second.get(2).status()).isEqualTo(Status.RETRY);

    // The retried ones go through in the next transaction, and read_committed sees each once.
    assertThat(transport.sendBatch(List.of(OutboxMessage.of(ok1, 2), OutboxMessage.of(ok2, 2))))
        .allMatch(SendResult::isDelivered);
    List<String> committed =
        TopicReader.readAll(broker.bootstrapServers(), topic, true, 22).stream()
            .map(this::eventType)
            .collect(Collectors.toList());
    assertThat(committed).hasSize(22).contains("Ok1", "Ok2").doesNotContain("Big");
  }

  @Test
  void sendBatch_recreates_owned_producer_when_another_one_fenced_it() {
    String type = unique("Fenced");
    String topic = typeTopic(broker, type, 1);
    Map<String, Object> config = config(broker);
    config.put("transactional.id", unique("shared-tx-id")); // a misconfiguration, on purpose
    KafkaTransport first = transport(config);
    KafkaTransport second = transport(config);
    assertThat(first.send(message(event(type, "a", "First1", 10))))
        .isEqualTo(SendResult.delivered());
    assertThat(second.send(message(event(type, "b", "Second1", 10))))
        .isEqualTo(SendResult.delivered());

    SendResult fenced = first.send(message(event(type, "a", "First2", 10)));

    assertThat(fenced.status()).isEqualTo(Status.RETRY);
    assertThat(fenced.reason().orElseThrow()).contains("recreated");
    // The new producer fences the other transport in turn and delivers.
    assertThat(first.send(message(event(type, "a", "First3", 10))))
        .isEqualTo(SendResult.delivered());
    assertThat(
            TopicReader.readAll(broker.bootstrapServers(), topic, true, 3).stream()
                .map(this::eventType))
        .containsExactlyInAnyOrder("First1", "Second1", "First3");
  }

  @Test
  void close_leaves_a_borrowed_producer_open() throws Exception {
    String type = unique("Borrowed");
    String topic = typeTopic(broker, type, 1);
    Map<String, Object> config = config(broker);
    try (Producer<String, byte[]> producer =
        new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer())) {
      KafkaTransport transport = KafkaTransport.builder(producer).build();
      assertThat(transport.send(message(event(type, "b", "ViaTransport", 10))))
          .isEqualTo(SendResult.delivered());

      transport.close();

      producer.send(new ProducerRecord<>(topic, "b", "direct".getBytes(UTF_8))).get();
      assertThat(readAll(topic)).hasSize(2);
    }
  }

  @Test
  void sendBatch_answers_unavailable_when_transport_is_closed() {
    KafkaTransport transport = transport();
    transport.close();
    transport.close(); // idempotent

    SendResult r = transport.sendBatch(List.of(message(event("Order", "o", "E", 1)))).get(0);

    assertThat(r.status()).isEqualTo(SendResult.Status.UNAVAILABLE);
    assertThat(r.reason().orElseThrow()).contains("closed");
  }

  private KafkaTransport transport() {
    return transport(config(broker));
  }

  /** A transport on these producer settings, closed after the test. */
  private KafkaTransport transport(Map<String, Object> config) {
    return register(KafkaTransport.builder(config).sendTimeout(Duration.ofSeconds(15)).build());
  }

  private KafkaTransport register(KafkaTransport transport) {
    toClose.add(transport);
    return transport;
  }

  /**
   * Creates the topic the transport sends a type's events to by default.
   *
   * @return its name
   */
  static String typeTopic(KafkaTestBroker broker, String type, int partitions) {
    return typeTopic(broker, type, partitions, Map.of());
  }

  /** As {@link #typeTopic(KafkaTestBroker, String, int)}, with topic settings. */
  static String typeTopic(
      KafkaTestBroker broker, String type, int partitions, Map<String, String> settings) {
    String topic = "outbox.event." + type;
    broker.createTopic(topic, partitions, settings);
    return topic;
  }

  /** The event ids of consumed records, in their order. */
  static List<UUID> eventIds(List<? extends ConsumerRecord<?, ?>> records) {
    return records.stream().map(r -> KafkaEvents.eventId(r).orElseThrow()).toList();
  }

  /**
   * Producer settings for a broker of the tests: timeouts short enough that a send the broker never
   * answers fails within a test.
   */
  static Map<String, Object> config(KafkaTestBroker broker) {
    Map<String, Object> config = new HashMap<>();
    config.put("bootstrap.servers", broker.bootstrapServers());
    config.put("delivery.timeout.ms", "10000");
    config.put("request.timeout.ms", "5000");
    config.put("max.block.ms", "5000");
    return config;
  }

  private static List<ConsumerRecord<String, byte[]>> readAll(String topic) {
    return TopicReader.readAll(broker.bootstrapServers(), topic);
  }

  static OutboxEvent event(String type, String aggregateId, String eventType, int payloadBytes) {
    return OutboxEvent.builder(type, aggregateId, eventType)
        .payload(new byte[payloadBytes], "application/octet-stream")
        .build();
  }

  static OutboxMessage message(OutboxEvent event) {
    return OutboxMessage.of(event, 1);
  }

  static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  private String eventType(ConsumerRecord<String, byte[]> r) {
    return KafkaEvents.eventType(r).orElseThrow();
  }

  private static Map<String, String> headers(ConsumerRecord<String, byte[]> r) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Header h : r.headers()) {
      out.put(h.key(), new String(h.value(), UTF_8));
    }
    return out;
  }
}
