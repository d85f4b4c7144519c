package dev.outboxkit.jms;

import static dev.outboxkit.jms.JmsTransportTest.unique;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.TransportRelayTest;
import dev.outboxkit.jms.QueueReader.Received;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.activemq.ActiveMqTestBroker;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * End to end on a real database and a real broker: events appended in transactions, published by
 * two relays sharing one transport, consumed by plain JMS consumers. One subclass per database.
 */
abstract class JmsRelayContractTest extends TransportRelayTest {
  private static final int AGGREGATES = 50;
  private static final int PER_AGGREGATE = 100;
  private static final int TOTAL = AGGREGATES * PER_AGGREGATE;

  /** Bounds of the waits; generous for a loaded 2-core machine, never asserted as timings. */
  private static final Duration PATIENCE = Duration.ofSeconds(120);

  private ActiveMqTestBroker broker;

  @BeforeAll
  void setUp() {
    broker = ActiveMqTestBroker.startPersistent("relay-" + flavor().name().toLowerCase());
  }

  @AfterAll
  void tearDown() {
    if (broker != null) {
      broker.close();
    }
  }

  @BeforeEach
  void startBroker() {
    broker.start();
  }

  @Test
  void two_relays_publish_5000_events_once_each_in_aggregate_order_with_every_property()
      throws Exception {
    String type = unique("Order");
    Map<UUID, OutboxEvent> appended = append(type);
    List<Delivery> received = Collections.synchronizedList(new ArrayList<>());
    try (JmsTransport transport = transport();
        Consumers consumers = new Consumers(queue(type), 2, received)) {
      runRelays(transport, () -> {});
      consumers.awaitAtLeast(TOTAL);
      consumers.settle();
    }

    assertThat(statusCounts()).containsEntry(EventStatus.PUBLISHED, (long) TOTAL).hasSize(1);
    assertThat(maxAttempts()).as("no failure charged").isZero();
    List<UUID> ids = received.stream().map(d -> d.message.eventId()).toList();
    assertThat(ids).hasSize(TOTAL).doesNotHaveDuplicates();
    assertThat(new HashSet<>(ids)).isEqualTo(appended.keySet());
    assertComplete(received, appended);
    assertAggregateOrder(received, appended);
    // Message groups: all of an aggregate's messages went to one of the competing consumers.
    Map<String, Set<Integer>> consumersPerAggregate = new HashMap<>();
    for (Delivery d : received) {
      consumersPerAggregate
          .computeIfAbsent(d.message.groupId(), k -> new HashSet<>())
          .add(d.consumer);
    }
    assertThat(consumersPerAggregate.values()).allSatisfy(s -> assertThat(s).hasSize(1));
  }

  @Test
  void a_broker_stopped_mid_run_and_restarted_loses_nothing_and_kills_nothing() throws Exception {
    String type = unique("Outage");
    Map<UUID, OutboxEvent> appended = append(type);
    AtomicBoolean outageDone = new AtomicBoolean();
    try (JmsTransport transport = transport()) {
      runRelays(
          transport,
          () -> {
            // Once a fifth is published: stop the broker for a while, then bring it back.
            if (!outageDone.get() && published() >= TOTAL / 5) {
              broker.stop();
              sleep(Duration.ofMillis(1500));
              broker.start();
              outageDone.set(true);
            }
          });
    }

    assertThat(outageDone).as("the outage happened mid-run").isTrue();
    assertThat(statusCounts()).containsEntry(EventStatus.PUBLISHED, (long) TOTAL).hasSize(1);
    assertThat(maxAttempts()).as("the outage charged no attempt").isZero();
    List<Delivery> received = new ArrayList<>();
    for (Received r :
        QueueReader.readAll(
            new ActiveMQConnectionFactory(broker.url()), queue(type), Duration.ofSeconds(2))) {
      received.add(new Delivery(0, r));
    }
    // At least once: a commit cut off by the outage may have gone through and been sent again.
    assertThat(
            received.stream()
                .map(d -> d.message.eventId())
                .collect(java.util.stream.Collectors.toSet()))
        .isEqualTo(appended.keySet());
    assertComplete(received, appended);
    assertAggregateOrder(received, appended);
  }

  /**
   * Issue 31, item 1, for JMS: the broker refuses one message of an aggregate's run sent in one
   * batch; nothing of that aggregate after it reaches the queue, the refused event goes DEAD (one
   * attempt allowed), the later ones wait behind it, and after it is discarded they follow in
   * order.
   */
  @Test
  void a_message_the_broker_refuses_holds_back_its_aggregate_and_leaves_no_hole_on_the_queue()
      throws Exception {
    String type = unique("Refused");
    FaultPlugin faults = new FaultPlugin();
    List<OutboxEvent> events = new ArrayList<>();
    OutboxEvent refused = null;
    try (java.sql.Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      for (int seq = 0; seq < 20; seq++) {
        for (int a = 0; a < 10; a++) {
          OutboxEvent.Builder b =
              OutboxEvent.builder(type, "agg-" + a, "Step" + seq)
                  .payload("{\"seq\":" + seq + "}")
                  .header("seq", Integer.toString(seq));
          if (a == 3 && seq == 10) {
            b.header(FaultPlugin.REFUSE_HEADER, "yes");
          }
          OutboxEvent e = b.build();
          if (a == 3 && seq == 10) {
            refused = e;
          }
          events.add(e);
          Outbox.append(c, e);
        }
        c.commit();
      }
    }
    try (ActiveMqTestBroker refusing = ActiveMqTestBroker.startInMemory("refusing", faults);
        JmsTransport transport =
            JmsTransport.builder(new ActiveMQConnectionFactory(refusing.url()))
                .sendTimeout(Duration.ofSeconds(10))
                .build();
        OutboxRelay relay =
            OutboxRelay.builder(ds, transport)
                .name("jms-refused")
                .batchSize(200) // the whole run of each aggregate in one batch
                .maxAttempts(1)
                .pollInterval(Duration.ofMillis(50))
                .build()) {
      relay.start();
      Await.until(
          () -> published() == 190 && count(EventStatus.DEAD) == 1,
          PATIENCE,
          () -> "statuses " + statusCounts());

      assertThat(OutboxAdmin.create(ds).listDead(0, 10))
          .extracting(d -> d.id())
          .containsExactly(refused.id());
      assertThat(countWhere("status = 'PENDING' AND aggregate_id = 'agg-3'")).isEqualTo(9);
      ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(refusing.url());
      List<Received> first = QueueReader.read(factory, queue(type), 190, Duration.ofSeconds(1));
      Map<String, List<Integer>> expected = new HashMap<>();
      for (int a = 0; a < 10; a++) {
        expected.put("agg-" + a, sequence(0, a == 3 ? 10 : 20));
      }
      assertThat(sequences(first)).isEqualTo(expected);

      assertThat(OutboxAdmin.create(ds).discard(refused.id())).isTrue();

      Await.until(() -> published() == 199, PATIENCE, () -> "statuses " + statusCounts());
      List<Received> rest = QueueReader.read(factory, queue(type), 9, Duration.ofSeconds(1));
      assertThat(sequences(rest)).isEqualTo(Map.of("agg-3", sequence(11, 20)));
    }
  }

  /** The {@code seq} header of each aggregate's messages, in the order they were received. */
  private static Map<String, List<Integer>> sequences(List<Received> received) {
    Map<String, List<Integer>> out = new HashMap<>();
    for (Received r : received) {
      out.computeIfAbsent(r.groupId(), k -> new ArrayList<>())
          .add(Integer.parseInt(r.headers().get("seq")));
    }
    return out;
  }

  // ------------------------------------------------------------------ helpers

  private JmsTransport transport() {
    return JmsTransport.builder(new ActiveMQConnectionFactory(broker.url()))
        .name("e2e-" + flavor().name().toLowerCase())
        .sendTimeout(Duration.ofSeconds(10))
        .build();
  }

  private static String queue(String type) {
    return JmsTransport.DEFAULT_QUEUE_PREFIX + type;
  }

  /**
   * Two relays sharing the transport, until everything is published; {@code tick} runs between
   * polls.
   */
  private void runRelays(JmsTransport transport, Runnable tick) throws Exception {
    try (OutboxRelay a = relay(transport, "jms-a");
        OutboxRelay b = relay(transport, "jms-b")) {
      a.start();
      b.start();
      Instant deadline = Instant.now().plus(PATIENCE);
      while (published() < TOTAL) {
        if (Instant.now().isAfter(deadline)) {
          fail("not all published within " + PATIENCE + ": " + statusCounts());
        }
        tick.run();
        sleep(Duration.ofMillis(50));
      }
    }
  }

  private OutboxRelay relay(JmsTransport transport, String name) {
    // In ordered mode only the first unfinished event of each aggregate is claimable: with 50
    // aggregates, a relay claiming 100 would take every head at once and leave the other idle;
    // batches of 25 keep both relays busy.
    return OutboxRelay.builder(ds, transport)
        .name(name)
        .batchSize(25)
        .pollInterval(Duration.ofMillis(50))
        .outageBackoff(Duration.ofMillis(100), Duration.ofSeconds(1))
        .build();
  }

  /** 50 aggregates x 100 events, appended in 50 transactions that interleave the aggregates. */
  private Map<UUID, OutboxEvent> append(String type) throws SQLException {
    Map<UUID, OutboxEvent> appended = new LinkedHashMap<>();
    int[] next = new int[AGGREGATES];
    try (java.sql.Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      for (int tx = 0; tx < TOTAL / 100; tx++) {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
          int aggregate = (tx * 7 + i) % AGGREGATES;
          int seq = next[aggregate]++;
          OutboxEvent.Builder event =
              OutboxEvent.builder(type, "agg-" + aggregate, "OrderChanged")
                  .payload("{\"aggregate\":" + aggregate + ",\"seq\":" + seq + "}")
                  .header("seq", Integer.toString(seq))
                  .header("trace.id", "t-" + tx);
          if (aggregate % 2 == 0) {
            event.aggregateVersion(seq + 1L); // even aggregates only: absence travels too
          }
          events.add(event.build());
        }
        Outbox.appendAll(c, events);
        c.commit();
        events.forEach(e -> appended.put(e.id(), e));
      }
    }
    return appended;
  }

  private long published() {
    return count(EventStatus.PUBLISHED);
  }

  private static void assertComplete(List<Delivery> received, Map<UUID, OutboxEvent> appended) {
    for (Delivery d : received) {
      Received r = d.message;
      OutboxEvent e = appended.get(r.eventId());
      assertThat(e).as("unknown event %s", r.eventId()).isNotNull();
      assertThat(r.kind()).isEqualTo("bytes");
      assertThat(r.payload()).isEqualTo(e.payload());
      assertThat(r.deliveryMode()).isEqualTo(DeliveryMode.PERSISTENT);
      assertThat(r.correlationId()).isEqualTo(e.id().toString());
      assertThat(r.groupId()).isEqualTo(e.aggregateId());
      assertThat(r.property(JmsEvents.EVENT_TYPE)).isEqualTo(e.eventType());
      assertThat(r.property(JmsEvents.AGGREGATE_TYPE)).isEqualTo(e.aggregateType());
      assertThat(r.property(JmsEvents.AGGREGATE_ID)).isEqualTo(e.aggregateId());
      assertThat(r.properties().get(JmsEvents.SCHEMA_VERSION)).isEqualTo(e.schemaVersion());
      assertThat(r.properties().get(JmsEvents.AGGREGATE_VERSION))
          .isEqualTo(
              e.aggregateVersion().isPresent() ? (Object) e.aggregateVersion().getAsLong() : null);
      assertThat(r.property(JmsEvents.CONTENT_TYPE)).isEqualTo(e.contentType());
      assertThat(Instant.parse(r.property(JmsEvents.OCCURRED_AT))).isEqualTo(e.occurredAt());
      assertThat(r.headers()).isEqualTo(e.headers());
    }
  }

  /** Per aggregate, first deliveries come in append order (later duplicates are ignored). */
  private static void assertAggregateOrder(
      List<Delivery> received, Map<UUID, OutboxEvent> appended) {
    Set<UUID> seen = new HashSet<>();
    Map<String, Integer> lastSeq = new HashMap<>();
    for (Delivery d : received) {
      if (!seen.add(d.message.eventId())) {
        continue;
      }
      OutboxEvent e = appended.get(d.message.eventId());
      int seq = Integer.parseInt(e.headers().get("seq"));
      Integer previous = lastSeq.put(e.aggregateId(), seq);
      assertThat(seq)
          .as("aggregate %s: seq %d after %s", e.aggregateId(), seq, previous)
          .isEqualTo(previous == null ? 0 : previous + 1);
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** One consumed message and which consumer got it. */
  private record Delivery(int consumer, Received message) {}

  /** Competing plain JMS consumers on one queue, each on its own thread and connection. */
  private final class Consumers implements AutoCloseable {
    private final List<Connection> connections = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final List<Delivery> sink;
    private final AtomicBoolean running = new AtomicBoolean(true);

    Consumers(String queue, int count, List<Delivery> sink) throws Exception {
      this.sink = sink;
      for (int i = 0; i < count; i++) {
        Connection c = new ActiveMQConnectionFactory(broker.url()).createConnection();
        connections.add(c);
        Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = s.createConsumer(s.createQueue(queue));
        c.start();
        int index = i;
        Thread t =
            new Thread(
                () -> {
                  try {
                    while (running.get()) {
                      Message m = consumer.receive(100);
                      if (m != null) {
                        sink.add(new Delivery(index, QueueReader.toReceived(m)));
                      }
                    }
                  } catch (Exception e) {
                    if (running.get()) {
                      throw new IllegalStateException(e);
                    }
                  }
                },
                "test-consumer-" + i);
        t.setDaemon(true);
        threads.add(t);
        t.start();
      }
    }

    void awaitAtLeast(int n) {
      Instant deadline = Instant.now().plus(PATIENCE);
      while (sink.size() < n) {
        if (Instant.now().isAfter(deadline)) {
          fail("consumers got " + sink.size() + " of " + n + " messages within " + PATIENCE);
        }
        sleep(Duration.ofMillis(20));
      }
    }

    /** Waits a little longer, so that a duplicate would show. */
    void settle() {
      sleep(Duration.ofMillis(500));
    }

    @Override
    public void close() throws JMSException {
      running.set(false);
      for (Thread t : threads) {
        try {
          t.join(5_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      for (Connection c : connections) {
        c.close();
      }
    }
  }
}
