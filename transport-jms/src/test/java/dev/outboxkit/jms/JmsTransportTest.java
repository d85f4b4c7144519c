package dev.outboxkit.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.SendResult.Status;
import dev.outboxkit.jms.QueueReader.Received;
import dev.outboxkit.testkit.activemq.ActiveMqTestBroker;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import jakarta.jms.TemporaryQueue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The transport against a real ActiveMQ broker: message format, routing, per-event failures. */
class JmsTransportTest {
  static final Duration QUIET = Duration.ofMillis(300);
  private static final AtomicInteger UNIQUE = new AtomicInteger();
  private static ActiveMqTestBroker broker;
  private JmsTransport transport;

  @BeforeAll
  static void startBroker() {
    broker = ActiveMqTestBroker.startInMemory("transport");
  }

  @AfterAll
  static void stopBroker() {
    broker.close();
  }

  @AfterEach
  void closeTransport() {
    if (transport != null) {
      transport.close();
    }
  }

  static String unique(String prefix) {
    return prefix + UNIQUE.incrementAndGet();
  }

  static OutboxEvent event(String aggregateType, String aggregateId, int n) {
    return OutboxEvent.builder(aggregateType, aggregateId, "Happened")
        .payload("{\"n\":" + n + "}")
        .build();
  }

  static List<OutboxMessage> messages(List<OutboxEvent> events) {
    List<OutboxMessage> out = new ArrayList<>();
    for (OutboxEvent e : events) {
      out.add(OutboxMessage.of(e, 1));
    }
    return out;
  }

  static List<Status> statuses(List<SendResult> results) {
    return results.stream().map(SendResult::status).toList();
  }

  private JmsTransport transport() {
    transport =
        JmsTransport.builder(new ActiveMQConnectionFactory(broker.url())).name("test").build();
    return transport;
  }

  @Test
  void sendBatch_delivers_persistent_bytes_messages_with_every_property_and_the_group_id()
      throws Exception {
    String type = unique("Order");
    OutboxEvent e =
        OutboxEvent.builder(type, "order-7", "OrderPlaced")
            .payload(new byte[] {0, 1, 2, (byte) 0xff}, "application/octet-stream")
            .schemaVersion(3)
            .tenant("acme")
            .header("trace.id", "abc")
            .header("x_flag", "on")
            .header("in", "keyword")
            .occurredAt(Instant.parse("2025-01-31T12:13:01.123456Z"))
            .build();

    List<SendResult> results = transport().sendBatch(messages(List.of(e)));

    assertThat(results).containsExactly(SendResult.delivered());
    assertThat(broker.queueDepth("outbox." + type)).as("on the broker once delivered").isOne();
    List<Received> got =
        QueueReader.read(new ActiveMQConnectionFactory(broker.url()), "outbox." + type, 1, QUIET);
    assertThat(got).hasSize(1);
    Received r = got.get(0);
    assertThat(r.kind()).isEqualTo("bytes");
    assertThat(r.payload()).containsExactly(0, 1, 2, 0xff);
    assertThat(r.deliveryMode()).isEqualTo(DeliveryMode.PERSISTENT);
    assertThat(r.expiration()).isZero();
    assertThat(r.eventId()).isEqualTo(e.id());
    assertThat(r.correlationId()).isEqualTo(e.id().toString());
    assertThat(r.groupId()).isEqualTo("order-7");
    assertThat(r.property(JmsEvents.EVENT_ID)).isEqualTo(e.id().toString());
    assertThat(r.property(JmsEvents.EVENT_TYPE)).isEqualTo("OrderPlaced");
    assertThat(r.property(JmsEvents.AGGREGATE_TYPE)).isEqualTo(type);
    assertThat(r.property(JmsEvents.AGGREGATE_ID)).isEqualTo("order-7");
    assertThat(r.properties().get(JmsEvents.SCHEMA_VERSION)).isEqualTo(3);
    assertThat(r.property(JmsEvents.CONTENT_TYPE)).isEqualTo("application/octet-stream");
    assertThat(r.property(JmsEvents.OCCURRED_AT)).isEqualTo("2025-01-31T12:13:01.123456Z");
    assertThat(r.property(JmsEvents.TENANT)).isEqualTo("acme");
    assertThat(r.properties())
        .as("appended without a version")
        .doesNotContainKey(JmsEvents.AGGREGATE_VERSION);
    assertThat(r.property("trace$2Eid")).isEqualTo("abc");
    assertThat(r.headers())
        .containsOnly(
            java.util.Map.entry("trace.id", "abc"),
            java.util.Map.entry("x_flag", "on"),
            java.util.Map.entry("in", "keyword"));
  }

  @Test
  void the_consumer_helpers_read_every_field_back_through_the_jms2_simplified_api()
      throws Exception {
    String type = unique("Simple");
    OutboxEvent e =
        OutboxEvent.builder(type, "a-1", "Created")
            .payload("{\"x\":1}")
            .schemaVersion(2)
            .aggregateVersion(9_000_000_000L)
            .header("correlation-id", "corr-42")
            .build();
    transport().send(OutboxMessage.of(e, 1));

    try (JMSContext context = new ActiveMQConnectionFactory(broker.url()).createContext()) {
      JMSConsumer consumer = context.createConsumer(context.createQueue("outbox." + type));
      Message m = consumer.receive(5_000);
      assertThat(m).isNotNull();
      assertThat(JmsEvents.eventId(m)).contains(e.id());
      assertThat(JmsEvents.eventType(m)).contains("Created");
      assertThat(JmsEvents.aggregateType(m)).contains(type);
      assertThat(JmsEvents.aggregateId(m)).contains("a-1");
      assertThat(JmsEvents.schemaVersion(m)).hasValue(2);
      assertThat(JmsEvents.occurredAt(m)).contains(e.occurredAt());
      assertThat(JmsEvents.contentType(m)).contains(OutboxEvent.JSON);
      assertThat(JmsEvents.tenant(m)).isEmpty();
      assertThat(JmsEvents.aggregateVersion(m)).hasValue(9_000_000_000L);
      assertThat(m.getObjectProperty(JmsEvents.AGGREGATE_VERSION)).isEqualTo(9_000_000_000L);
      assertThat(JmsEvents.header(m, "correlation-id")).contains("corr-42");
      assertThat(m.getJMSCorrelationID()).isEqualTo("corr-42");
      assertThat(new String(JmsEvents.payload(m), StandardCharsets.UTF_8)).isEqualTo("{\"x\":1}");
    }
  }

  @Test
  void payload_reads_a_bytes_body_whole_after_a_partial_read_and_leaves_it_readable_again()
      throws Exception {
    String type = unique("Body");
    byte[] big = new byte[200_000];
    for (int i = 0; i < big.length; i++) {
      big[i] = (byte) (i * 31);
    }
    OutboxEvent large = OutboxEvent.builder(type, "a", "Big").payload(big, "application/x").build();
    OutboxEvent empty =
        OutboxEvent.builder(type, "a", "Empty").payload(new byte[0], "application/x").build();
    transport().sendBatch(messages(List.of(large, empty)));

    try (Connection c = new ActiveMQConnectionFactory(broker.url()).createConnection()) {
      c.start();
      Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
      MessageConsumer consumer = s.createConsumer(s.createQueue("outbox." + type));
      jakarta.jms.BytesMessage m = (jakarta.jms.BytesMessage) consumer.receive(5_000);
      byte[] start = new byte[10];
      assertThat(m.readBytes(start)).isEqualTo(10); // the consumer had a look first

      assertThat(JmsEvents.payload(m)).isEqualTo(big);
      byte[] again = new byte[big.length];
      assertThat(m.readBytes(again)).isEqualTo(big.length);
      assertThat(again).isEqualTo(big);
      assertThat(JmsEvents.payload(consumer.receive(5_000))).isEmpty();
    }
  }

  @Test
  void textMessages_sends_textual_payloads_as_text_and_keeps_other_bytes_untouched()
      throws Exception {
    transport =
        JmsTransport.builder(new ActiveMQConnectionFactory(broker.url()))
            .textMessages(true)
            .build();
    String type = unique("Text");
    OutboxEvent json = event(type, "a", 1);
    OutboxEvent latin =
        OutboxEvent.builder(type, "b", "T")
            .payload(
                "caf\u00e9".getBytes(StandardCharsets.ISO_8859_1), "text/plain; charset=latin1")
            .build();
    OutboxEvent invalidUtf8 =
        OutboxEvent.builder(type, "c", "T")
            .payload(new byte[] {'{', (byte) 0xc3, '}'}, "application/json")
            .build();
    OutboxEvent binary =
        OutboxEvent.builder(type, "d", "T").payload(new byte[] {9}, "application/avro").build();

    List<SendResult> results =
        transport.sendBatch(messages(List.of(json, latin, invalidUtf8, binary)));

    assertThat(statuses(results)).containsOnly(Status.DELIVERED);
    List<Received> got =
        QueueReader.read(new ActiveMQConnectionFactory(broker.url()), "outbox." + type, 4, QUIET);
    assertThat(got).extracting(Received::kind).containsExactly("text", "text", "bytes", "bytes");
    assertThat(got.get(0).payload()).isEqualTo(json.payload());
    assertThat(got.get(1).payload()).isEqualTo(latin.payload());
    assertThat(got.get(2).payload()).isEqualTo(invalidUtf8.payload());
    assertThat(got.get(3).payload()).isEqualTo(binary.payload());
  }

  @Test
  void destinations_follow_the_router_then_the_events_destination_then_the_default_queue()
      throws Exception {
    String type = unique("Route");
    String topic = unique("events.");
    String routedQueue = unique("routed.");
    transport =
        JmsTransport.builder(new ActiveMQConnectionFactory(broker.url()))
            .destinationRouter(
                e ->
                    switch (e.aggregateId()) {
                      case "to-topic" -> JmsDestination.topic(topic);
                      case "to-queue" -> JmsDestination.queue(routedQueue);
                      default -> null;
                    })
            .build();
    OutboxEvent toTopic = event(type, "to-topic", 1);
    OutboxEvent toQueue = event(type, "to-queue", 2);
    OutboxEvent explicit =
        OutboxEvent.builder(type, "x", "T").payload("{}").destination(unique("explicit.")).build();
    OutboxEvent byDefault = event(type, "y", 3);

    try (Connection c = new ActiveMQConnectionFactory(broker.url()).createConnection()) {
      c.start();
      Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
      MessageConsumer subscriber = s.createConsumer(s.createTopic(topic));

      List<SendResult> results =
          transport.sendBatch(messages(List.of(toTopic, toQueue, explicit, byDefault)));

      assertThat(statuses(results)).containsOnly(Status.DELIVERED);
      Message onTopic = subscriber.receive(5_000);
      assertThat(JmsEvents.eventId(onTopic)).contains(toTopic.id());
    }
    assertThat(transport.destinationOf(explicit))
        .isEqualTo(JmsDestination.queue(explicit.destination().orElseThrow()));
    assertThat(ids(routedQueue)).containsExactly(toQueue.id());
    assertThat(ids(explicit.destination().orElseThrow())).containsExactly(explicit.id());
    assertThat(ids("outbox." + type)).containsExactly(byDefault.id());
  }

  @Test
  void a_supplied_destination_object_is_used_as_it_is() throws Exception {
    String queue = unique("object.");
    try (Connection c = new ActiveMQConnectionFactory(broker.url()).createConnection()) {
      jakarta.jms.Queue q = c.createSession(false, Session.AUTO_ACKNOWLEDGE).createQueue(queue);
      transport =
          JmsTransport.builder(new ActiveMQConnectionFactory(broker.url()))
              .destinationRouter(e -> JmsDestination.of(q))
              .build();
      OutboxEvent e = event(unique("Obj"), "a", 1);

      assertThat(transport.send(OutboxMessage.of(e, 1))).isEqualTo(SendResult.delivered());
    }
    assertThat(ids(queue)).hasSize(1);
  }

  @Test
  void a_header_mapping_to_a_reserved_property_is_rejected_and_holds_back_only_its_aggregate()
      throws Exception {
    String type = unique("Reserved");
    OutboxEvent bad =
        OutboxEvent.builder(type, "a", "T")
            .payload("{}")
            .header("outbox-event-id", "spoofed")
            .build();
    OutboxEvent sameAggregate = event(type, "a", 2);
    OutboxEvent other = event(type, "b", 3);

    List<SendResult> results = transport().sendBatch(messages(List.of(bad, sameAggregate, other)));

    assertThat(statuses(results)).containsExactly(Status.REJECT, Status.RETRY, Status.DELIVERED);
    assertThat(results.get(0).reason().orElseThrow())
        .contains("outbox-event-id")
        .contains("outbox_event_id")
        .doesNotContain("spoofed");
    assertThat(results.get(1).reason().orElseThrow()).contains(bad.id().toString());
    assertThat(ids("outbox." + type)).containsExactly(other.id());
  }

  @Test
  void an_invalid_destination_is_rejected_for_all_its_events_and_the_rest_is_delivered()
      throws Exception {
    String type = unique("Invalid");
    TemporaryQueue deleted;
    // A temporary queue of a connection that is gone: ActiveMQ refuses to publish to it with an
    // InvalidDestinationException.
    try (Connection other = new ActiveMQConnectionFactory(broker.url()).createConnection()) {
      deleted = other.createSession(false, Session.AUTO_ACKNOWLEDGE).createTemporaryQueue();
    }
    transport =
        JmsTransport.builder(new ActiveMQConnectionFactory(broker.url()))
            .destinationRouter(
                e -> e.aggregateId().startsWith("gone") ? JmsDestination.of(deleted) : null)
            .build();
    List<OutboxEvent> events =
        List.of(
            event(type, "ok-1", 1),
            event(type, "gone-1", 2),
            event(type, "ok-2", 3),
            event(type, "gone-2", 4),
            event(type, "ok-3", 5));

    List<SendResult> results = transport.sendBatch(messages(events));

    assertThat(statuses(results))
        .containsExactly(
            Status.DELIVERED, Status.REJECT, Status.DELIVERED, Status.REJECT, Status.DELIVERED);
    assertThat(results.get(1).reason().orElseThrow())
        .contains("InvalidDestinationException")
        .contains("destination:");
    assertThat(ids("outbox." + type))
        .containsExactly(events.get(0).id(), events.get(2).id(), events.get(4).id());
  }

  @Test
  void a_throwing_router_retries_that_event_and_holds_back_its_aggregate() throws Exception {
    String type = unique("Throw");
    transport =
        JmsTransport.builder(new ActiveMQConnectionFactory(broker.url()))
            .destinationRouter(
                e -> {
                  if (e.eventType().equals("Lookup")) {
                    throw new IllegalStateException("lookup failed");
                  }
                  return null;
                })
            .build();
    OutboxEvent failing = OutboxEvent.builder(type, "a", "Lookup").payload("{}").build();
    OutboxEvent after = event(type, "a", 2);
    OutboxEvent other = event(type, "b", 3);

    List<SendResult> results = transport.sendBatch(messages(List.of(failing, after, other)));

    assertThat(statuses(results)).containsExactly(Status.RETRY, Status.RETRY, Status.DELIVERED);
    assertThat(results.get(0).reason().orElseThrow())
        .isEqualTo("destination router failed: IllegalStateException: lookup failed");
    assertThat(ids("outbox." + type)).containsExactly(other.id());
  }

  @Test
  void an_expiring_event_is_sent_with_a_time_to_live_until_its_expiry() throws Exception {
    String type = unique("Expiring");
    Instant expires = Instant.now().plus(Duration.ofHours(1));
    OutboxEvent e = OutboxEvent.builder(type, "a", "T").payload("{}").expiresAt(expires).build();

    transport().send(OutboxMessage.of(e, 1));

    Received r =
        QueueReader.read(new ActiveMQConnectionFactory(broker.url()), "outbox." + type, 1, QUIET)
            .get(0);
    assertThat(r.expiration())
        .isBetween(expires.toEpochMilli() - 60_000, expires.toEpochMilli() + 1_000);
  }

  @Test
  void concurrent_batches_share_one_connection_and_all_arrive() throws Exception {
    String type = unique("Concurrent");
    AtomicInteger connections = new AtomicInteger();
    transport =
        JmsTransport.builder(
                new org.apache.activemq.ActiveMQConnectionFactory(broker.url()) {
                  @Override
                  public jakarta.jms.Connection createConnection() throws jakarta.jms.JMSException {
                    connections.incrementAndGet();
                    return super.createConnection();
                  }
                })
            .build();
    int threads = 6;
    int batches = 10;
    int perBatch = 20;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    Set<UUID> sent = java.util.concurrent.ConcurrentHashMap.newKeySet();
    try {
      List<Future<List<SendResult>>> futures = new ArrayList<>();
      for (int t = 0; t < threads * batches; t++) {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < perBatch; i++) {
          OutboxEvent e = event(type, "agg-" + t, i);
          events.add(e);
          sent.add(e.id());
        }
        futures.add(pool.submit(() -> transport.sendBatch(messages(events))));
      }
      for (Future<List<SendResult>> f : futures) {
        assertThat(statuses(f.get())).containsOnly(Status.DELIVERED);
      }
      assertThat(connections).hasValue(1);
    } finally {
      pool.shutdownNow();
    }
    List<Received> got =
        QueueReader.read(
            new ActiveMQConnectionFactory(broker.url()), "outbox." + type, sent.size(), QUIET);
    assertThat(new HashSet<>(got.stream().map(Received::eventId).toList())).isEqualTo(sent);
    assertThat(got).hasSize(sent.size());
  }

  @Test
  void send_after_close_answers_unavailable_and_close_is_idempotent() {
    JmsTransport t = transport();
    t.close();
    t.close();

    SendResult r = t.send(OutboxMessage.of(event("X", "a", 1), 1));

    assertThat(r.status()).isEqualTo(SendResult.Status.UNAVAILABLE);
    assertThat(r.reason().orElseThrow()).contains("closed");
  }

  @Test
  void options_are_checked_where_they_are_set() {
    JmsTransport.Builder b = JmsTransport.builder(new ActiveMQConnectionFactory(broker.url()));
    assertThatThrownBy(() -> JmsTransport.builder(null))
        .isInstanceOf(OutboxConfigurationException.class);
    assertThatThrownBy(() -> b.name("has space")).isInstanceOf(OutboxConfigurationException.class);
    assertThatThrownBy(() -> b.sendTimeout(Duration.ZERO))
        .isInstanceOf(OutboxConfigurationException.class);
    assertThatThrownBy(() -> b.closeTimeout(Duration.ofSeconds(-1)))
        .isInstanceOf(OutboxConfigurationException.class);
    assertThatThrownBy(() -> b.credentials(" ", "x"))
        .isInstanceOf(OutboxConfigurationException.class);
    assertThatThrownBy(() -> b.destinationRouter(null))
        .isInstanceOf(OutboxConfigurationException.class);
    assertThatThrownBy(() -> JmsDestination.queue(" "))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> JmsDestination.topic("a\nb"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void credentials_are_used_to_connect() throws Exception {
    List<String> users = new java.util.concurrent.CopyOnWriteArrayList<>();
    org.apache.activemq.ActiveMQConnectionFactory real =
        new ActiveMQConnectionFactory(broker.url());
    jakarta.jms.ConnectionFactory recording =
        new org.apache.activemq.ActiveMQConnectionFactory(broker.url()) {
          @Override
          public jakarta.jms.Connection createConnection(String user, String password)
              throws jakarta.jms.JMSException {
            users.add(user + "/" + password);
            return real.createConnection(user, password);
          }
        };
    transport = JmsTransport.builder(recording).credentials("relay", "pw").build();

    assertThat(transport.send(OutboxMessage.of(event(unique("Cred"), "a", 1), 1)))
        .isEqualTo(SendResult.delivered());
    assertThat(users).containsExactly("relay/pw");
  }

  @Test
  void toString_names_settings_but_never_credentials() {
    transport =
        JmsTransport.builder(new ActiveMQConnectionFactory(broker.url()))
            .name("named")
            .credentials("u", "s3cret")
            .build();
    assertThat(transport.toString()).contains("named").doesNotContain("s3cret");
  }

  private List<UUID> ids(String queue) throws Exception {
    return QueueReader.eventIds(new ActiveMQConnectionFactory(broker.url()), queue, QUIET);
  }
}
