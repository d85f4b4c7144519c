package dev.outboxkit.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.DeadEvent;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxWriter;
import dev.outboxkit.jdbc.RecordingListener;
import dev.outboxkit.jdbc.TransportRelayTest;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.Sql;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import dev.outboxkit.testkit.kafka.TopicReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay end to end: events appended in business transactions on a real database, published by
 * started {@link OutboxRelay}s through {@link KafkaTransport} to a real broker, read back with a
 * plain consumer. One subclass per database.
 */
abstract class KafkaRelayContractTest extends TransportRelayTest {
  private static final Logger log = LoggerFactory.getLogger(KafkaRelayContractTest.class);

  /** Events per business transaction. */
  private static final int PER_TRANSACTION = 50;

  /** Microsecond precision: what every supported database stores. */
  private static final Instant BASE = Instant.parse("2025-01-31T12:13:01.123456Z");

  KafkaRelayContractTest() {
    super(
        "business",
        "id VARCHAR(36) NOT NULL PRIMARY KEY, aggregate_id VARCHAR(64) NOT NULL, n INT NOT NULL");
  }

  @Test
  void relays_publish_every_event_with_key_headers_and_aggregate_order_when_two_share_the_table()
      throws Exception {
    KafkaTestBroker broker = KafkaTestBroker.shared();
    String type = KafkaTransportTest.unique("Order");
    String topic = KafkaTransportTest.typeTopic(broker, type, 6);
    long start = System.nanoTime();
    List<OutboxEvent> events = new ArrayList<>(appendInBusinessTransactions(type, 0, 1000, 100));
    analyze();
    RecordingListener counters = new RecordingListener();
    startRelay("r1", broker, TransportTimeouts.NORMAL, counters);
    startRelay("r2", broker, TransportTimeouts.NORMAL, counters);
    // The rest while both relays run, as in a live service.
    events.addAll(appendInBusinessTransactions(type, 1000, 9000, 100));
    long appended = System.nanoTime();

    awaitCount(EventStatus.PUBLISHED, 10_000, Duration.ofSeconds(120));
    log.info(
        "[{}] 10,000 events appended in {} ms, all published {} ms after the last append",
        flavor(),
        (appended - start) / 1_000_000,
        (System.nanoTime() - appended) / 1_000_000);

    List<ConsumerRecord<String, byte[]>> records =
        TopicReader.readAll(broker.bootstrapServers(), topic);
    Map<UUID, OutboxEvent> byId = byId(events);
    assertThat(ids(records)).as("every event on the topic").isEqualTo(byId.keySet());
    // Nothing failed, so nothing was sent twice.
    assertThat(records).hasSize(10_000);
    for (ConsumerRecord<String, byte[]> r : records) {
      OutboxEvent e = byId.get(KafkaEvents.eventId(r).orElseThrow());
      assertThat(r.key()).isEqualTo(e.aggregateId());
      assertThat(new String(r.value(), UTF_8)).isEqualTo(new String(e.payload(), UTF_8));
      List<String> names =
          new ArrayList<>(
              List.of(
                  KafkaEvents.HEADER_EVENT_ID,
                  KafkaEvents.HEADER_EVENT_TYPE,
                  KafkaEvents.HEADER_AGGREGATE_TYPE,
                  KafkaEvents.HEADER_SCHEMA_VERSION,
                  KafkaEvents.HEADER_CONTENT_TYPE,
                  KafkaEvents.HEADER_OCCURRED_AT,
                  "correlation-id",
                  "seq"));
      if (e.aggregateVersion().isPresent()) {
        names.add(KafkaEvents.HEADER_AGGREGATE_VERSION);
      }
      assertThat(headers(r).keySet()).containsExactlyInAnyOrderElementsOf(names);
      // Appended with a version on even aggregates only: it travels, and its absence does too.
      assertThat(KafkaEvents.aggregateVersion(r)).isEqualTo(e.aggregateVersion());
      assertThat(KafkaEvents.eventType(r)).contains(e.eventType());
      assertThat(KafkaEvents.aggregateType(r)).contains(type);
      assertThat(KafkaEvents.schemaVersion(r)).hasValue(2);
      assertThat(KafkaEvents.occurredAt(r)).contains(e.occurredAt());
      assertThat(headers(r)).containsEntry("content-type", "application/json");
      assertThat(headers(r)).containsAllEntriesOf(e.headers());
    }
    assertAggregateOrder(records, byId, 100, 100);
    assertThat(counters.dead.get()).isZero();
  }

  @Test
  void relays_lose_nothing_and_charge_no_attempts_when_broker_stops_mid_run_and_restarts()
      throws Exception {
    try (KafkaTestBroker broker = KafkaTestBroker.startNew("relay-outage")) {
      String type = KafkaTransportTest.unique("Shipment");
      String topic = KafkaTransportTest.typeTopic(broker, type, 4);
      List<OutboxEvent> events = new ArrayList<>(appendInBusinessTransactions(type, 0, 2000, 50));
      analyze();
      RecordingListener counters = new RecordingListener();
      startRelay("r1", broker, TransportTimeouts.SHORT, counters);
      startRelay("r2", broker, TransportTimeouts.SHORT, counters);

      awaitCount(EventStatus.PUBLISHED, 500, Duration.ofSeconds(60));
      broker.stop();
      long lastSeqBeforeOutage = Sql.queryLong(ds, "SELECT MAX(seq) FROM outbox_event");
      // Committed while the broker is away: these must get through too.
      events.addAll(appendInBusinessTransactions(type, 2000, 500, 50));
      // Keep it down for several relay rounds, each a chance to charge or bury events.
      Await.until(
          () -> counters.unavailable.get() >= 4,
          Duration.ofSeconds(60),
          () -> "relays reported the outage " + counters.unavailable.get() + " times");
      long publishedBeforeRestart = count(EventStatus.PUBLISHED);
      // How much of the first 2,000 the stop left is up to the scheduler (it is logged below);
      // that nothing reaches PUBLISHED without the broker's confirmation is not.
      assertThat(countWhere("status = 'PUBLISHED' AND seq > " + lastSeqBeforeOutage))
          .as("events committed while the broker is away, marked PUBLISHED before it is back")
          .isZero();
      broker.start();

      // Nobody touches the relays: they must find the broker again by themselves.
      awaitCount(EventStatus.PUBLISHED, 2500, Duration.ofSeconds(120));

      assertThat(count(EventStatus.DEAD)).isZero();
      assertThat(counters.dead.get()).isZero();
      assertThat(counters.recovered.get()).as("relays saw the broker come back").isPositive();
      // attempts counts an event's own failed sends (0 = published at the first try). An outage
      // is never charged, so the many rounds the relays spent probing the stopped broker (the
      // oldest event is probed again and again) left no trace. Only the batches in flight when
      // the broker went away, or met it still electing leaders when it came back, may have been
      // charged one attempt each: at most 2.
      long maxAttempts = maxAttempts();
      assertThat(maxAttempts).isBetween(0L, 2L);

      List<ConsumerRecord<String, byte[]>> records =
          TopicReader.readAll(broker.bootstrapServers(), topic);
      Map<UUID, OutboxEvent> byId = byId(events);
      assertThat(ids(records)).as("every event on the topic").isEqualTo(byId.keySet());
      int duplicates = records.size() - byId.size();
      log.info(
          "[{}] outage: {} records for {} events, {} duplicate(s); {} published before the"
              + " restart, {} outage reports, {} charged retries, max attempts {}",
          flavor(),
          records.size(),
          byId.size(),
          duplicates,
          publishedBeforeRestart,
          counters.unavailable.get(),
          counters.retried.get(),
          maxAttempts);
      // A consumer that skips ids it has seen gets each aggregate in append order.
      assertAggregateOrder(records, byId, 50, 50);
    }
  }

  @Test
  void relay_delivers_other_topics_and_charges_nothing_while_one_topic_is_missing()
      throws Exception {
    KafkaTestBroker broker = KafkaTestBroker.shared();
    String ghost = KafkaTransportTest.unique("Ghost");
    String real = KafkaTransportTest.unique("Real");
    broker.createTopic("outbox.event." + real, 2);
    List<OutboxEvent> ghostEvents = new ArrayList<>(appendInBusinessTransactions(ghost, 0, 20, 4));
    List<OutboxEvent> realEvents = new ArrayList<>(appendInBusinessTransactions(real, 0, 20, 4));
    RecordingListener counters = new RecordingListener();
    // Two attempts: a single charged failure per event would already send it DEAD.
    startRelay("r1", broker, TransportTimeouts.NORMAL, counters, 2);

    awaitCount(EventStatus.PUBLISHED, 20, Duration.ofSeconds(60));
    Await.until(
        () -> counters.destinationDown.get() >= 1,
        Duration.ofSeconds(30),
        () -> "the missing topic reported as its own outage");
    // Appended while the topic is known missing: these flow as if nothing were wrong.
    long appendedAt = System.nanoTime();
    realEvents.addAll(appendInBusinessTransactions(real, 20, 20, 4));
    awaitCount(EventStatus.PUBLISHED, 40, Duration.ofSeconds(30));
    long latencyMs = (System.nanoTime() - appendedAt) / 1_000_000;
    // Several rounds of holds and checks of the missing topic, each a chance to charge an event.
    Await.until(
        () -> counters.destinationDown.get() >= 3,
        Duration.ofSeconds(60),
        () -> "three rounds met the topic missing, saw " + counters.destinationDown.get());
    String ghostRows = "FROM outbox_event WHERE aggregate_type = '" + ghost + "'";
    // Each hold ends with a claim that checks the topic again: IN_FLIGHT for that moment.
    assertThat(
            Sql.queryLong(
                ds, "SELECT COUNT(*) " + ghostRows + " AND status IN ('PENDING', 'IN_FLIGHT')"))
        .isEqualTo(20);
    assertThat(Sql.queryLong(ds, "SELECT MAX(attempts) " + ghostRows)).isZero();
    assertThat(counters.unavailable.get()).as("no relay-wide pause").isZero();
    assertThat(counters.retried.get()).as("nothing charged").isZero();

    broker.createTopic("outbox.event." + ghost, 2);

    awaitCount(EventStatus.PUBLISHED, 60, Duration.ofSeconds(90));
    assertThat(count(EventStatus.DEAD)).isZero();
    assertThat(maxAttempts()).isZero();
    List<ConsumerRecord<String, byte[]>> ghostRecords =
        TopicReader.readAll(broker.bootstrapServers(), "outbox.event." + ghost);
    assertThat(ids(ghostRecords)).isEqualTo(byId(ghostEvents).keySet());
    assertAggregateOrder(ghostRecords, byId(ghostEvents), 4, 5);
    assertAggregateOrder(
        TopicReader.readAll(broker.bootstrapServers(), "outbox.event." + real),
        byId(realEvents),
        4,
        10);
    log.info(
        "[{}] one topic missing: the other's events appended during it published within {} ms;"
            + " {} rounds held the missing topic's events",
        flavor(),
        latencyMs,
        counters.destinationDown.get());
  }

  @Test
  void relay_quarantines_oversized_events_and_delivers_the_others_when_kafka_refuses_their_size()
      throws Exception {
    KafkaTestBroker broker = KafkaTestBroker.shared();
    String type = KafkaTransportTest.unique("Upload");
    String topic = "outbox.event." + type;
    // The broker refuses records above 100 kB on this topic; the producer anything above 1 MiB.
    broker.createTopic(topic, 2, Map.of("max.message.bytes", "100000"));
    OutboxWriter writer = Outbox.writer().maxPayloadBytes(4 << 20).build();
    OutboxEvent a1 = event(type, "a", "A1", 100);
    OutboxEvent b1 = event(type, "b", "B1", 2 << 20); // refused by the producer
    OutboxEvent c1 = event(type, "c", "C1", 200_000); // refused by the broker
    OutboxEvent d1 = event(type, "d", "D1", 100);
    OutboxEvent b2 = event(type, "b", "B2", 100);
    OutboxEvent a2 = event(type, "a", "A2", 100);
    OutboxEvent d2 = event(type, "d", "D2", 100);
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      for (OutboxEvent e : List.of(a1, b1, c1, d1, b2, a2, d2)) {
        writer.append(c, e);
      }
      c.commit();
    }
    RecordingListener counters = new RecordingListener();
    startRelay("r1", broker, TransportTimeouts.NORMAL, counters);

    Await.until(
        () -> count(EventStatus.PUBLISHED) == 4 && count(EventStatus.DEAD) == 2,
        Duration.ofSeconds(60),
        () -> "statuses " + OutboxAdmin.create(ds).countByStatus());

    List<DeadEvent> dead = OutboxAdmin.create(ds).listDead(0, 10);
    assertThat(dead).extracting(DeadEvent::id).containsExactly(b1.id(), c1.id());
    assertThat(dead)
        .allSatisfy(
            d -> {
              assertThat(d.attempts()).isEqualTo(1);
              assertThat(d.lastError()).contains("RecordTooLargeException");
            });
    assertThat(dead.get(0).lastError()).contains("max.request.size");
    // Ordered mode: B2 waits behind its quarantined predecessor until it is replayed or discarded.
    assertThat(count(EventStatus.PENDING)).isEqualTo(1);
    List<ConsumerRecord<String, byte[]>> records =
        TopicReader.readAll(broker.bootstrapServers(), topic);
    assertThat(ids(records)).containsExactlyInAnyOrder(a1.id(), a2.id(), d1.id(), d2.id());
    assertAggregateOrder(
        records,
        byId(List.of(a1, a2, d1, d2)),
        2,
        2,
        Map.of("a", List.of(0, 1), "d", List.of(0, 1)));
  }

  @Test
  void relay_holds_an_aggregate_behind_an_event_the_topic_refuses_for_its_size_and_writes_no_hole()
      throws Exception {
    KafkaTestBroker broker = KafkaTestBroker.shared();
    String type = KafkaTransportTest.unique("Refused");
    String topic =
        KafkaTransportTest.typeTopic(broker, type, 2, Map.of("max.message.bytes", "65536"));
    // 20 business transactions, one event for each of 10 aggregates in each; aggregate 3's event
    // of the eleventh is 100 kB, above the topic's limit. The relay claims all 200 in one batch,
    // so aggregate 3's nine later events travel in the same batch as the refused one.
    List<OutboxEvent> events = new ArrayList<>();
    OutboxEvent oversized = null;
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      for (int seq = 0; seq < 20; seq++) {
        for (int a = 0; a < 10; a++) {
          OutboxEvent.Builder b =
              OutboxEvent.builder(type, "agg-" + a, "Step" + seq)
                  .header("seq", Integer.toString(seq));
          if (a == 3 && seq == 10) {
            oversized = b.payload(new byte[100_000], "application/octet-stream").build();
            events.add(oversized);
          } else {
            events.add(b.payload("{\"seq\":" + seq + "}").build());
          }
          Outbox.append(c, events.get(events.size() - 1));
        }
        c.commit();
      }
    }
    RecordingListener counters = new RecordingListener();
    startRelay("r1", broker, TransportTimeouts.NORMAL, counters);

    Await.until(
        () -> count(EventStatus.PUBLISHED) == 190 && count(EventStatus.DEAD) == 1,
        Duration.ofSeconds(60),
        () -> "statuses " + OutboxAdmin.create(ds).countByStatus());

    OutboxAdmin admin = OutboxAdmin.create(ds);
    List<DeadEvent> dead = admin.listDead(0, 10);
    assertThat(dead).extracting(DeadEvent::id).containsExactly(oversized.id());
    assertThat(dead.get(0).attempts()).isEqualTo(1);
    assertThat(dead.get(0).lastError())
        .containsPattern("record takes 100\\d{3} \\(")
        .contains("accepts at most 65536 bytes (max.message.bytes)")
        .contains(topic);
    // Ordered mode holds aggregate 3's nine later events behind the DEAD one.
    assertThat(countWhere("status = 'PENDING' AND aggregate_id = 'agg-3'")).isEqualTo(9);
    assertThat(count(EventStatus.PUBLISHED)).isEqualTo(190);
    Map<String, List<Integer>> expected = new HashMap<>();
    for (int a = 0; a < 10; a++) {
      expected.put("agg-" + a, sequence(0, a == 3 ? 10 : 20));
    }
    // Nothing of aggregate 3 after the refused event reached the topic: no hole for a consumer.
    List<ConsumerRecord<String, byte[]>> records =
        TopicReader.readAll(broker.bootstrapServers(), topic);
    assertThat(records).hasSize(190);
    assertSequences(records, expected);

    assertThat(admin.discard(oversized.id())).isTrue();

    awaitCount(EventStatus.PUBLISHED, 199, Duration.ofSeconds(60));
    expected.put("agg-3", sequence(0, 10));
    expected.get("agg-3").addAll(sequence(11, 20));
    records = TopicReader.readAll(broker.bootstrapServers(), topic);
    assertThat(records).hasSize(199);
    assertSequences(records, expected);
    assertThat(count(EventStatus.PENDING)).isZero();
  }

  /** The {@code seq} header of each key's records, in offset order, must be as expected. */
  private static void assertSequences(
      List<ConsumerRecord<String, byte[]>> records, Map<String, List<Integer>> expected) {
    Map<String, List<Integer>> actual = new HashMap<>();
    for (ConsumerRecord<String, byte[]> r : records) {
      actual
          .computeIfAbsent(r.key(), k -> new ArrayList<>())
          .add(Integer.parseInt(headers(r).get("seq")));
    }
    assertThat(actual).isEqualTo(expected);
  }

  // ---------------------------------------------------------------------------------------------

  /** Kafka client timeouts: generous for a healthy broker, short where the broker is stopped. */
  enum TransportTimeouts {
    NORMAL(20_000, 10_000, 5_000, Duration.ofSeconds(25), Duration.ofSeconds(30)),
    SHORT(3_000, 1_500, 1_500, Duration.ofSeconds(6), Duration.ofSeconds(10));

    final int deliveryMs;
    final int requestMs;
    final int maxBlockMs;
    final Duration transportSendTimeout;
    // Above the transport's deadline, so the transport, not the relay, ends a slow batch.
    final Duration relaySendTimeout;

    TransportTimeouts(
        int deliveryMs,
        int requestMs,
        int maxBlockMs,
        Duration transportSendTimeout,
        Duration relaySendTimeout) {
      this.deliveryMs = deliveryMs;
      this.requestMs = requestMs;
      this.maxBlockMs = maxBlockMs;
      this.transportSendTimeout = transportSendTimeout;
      this.relaySendTimeout = relaySendTimeout;
    }
  }

  /**
   * Starts a relay with its own producer and its own connection pool, as a second process would
   * have.
   */
  private void startRelay(
      String name, KafkaTestBroker broker, TransportTimeouts timeouts, RecordingListener counters) {
    startRelay(name, broker, timeouts, counters, OutboxRelay.DEFAULT_MAX_ATTEMPTS);
  }

  private void startRelay(
      String name,
      KafkaTestBroker broker,
      TransportTimeouts timeouts,
      RecordingListener counters,
      int maxAttempts) {
    Map<String, Object> config = new HashMap<>();
    config.put("bootstrap.servers", broker.bootstrapServers());
    config.put("delivery.timeout.ms", Integer.toString(timeouts.deliveryMs));
    config.put("request.timeout.ms", Integer.toString(timeouts.requestMs));
    config.put("max.block.ms", Integer.toString(timeouts.maxBlockMs));
    config.put("reconnect.backoff.max.ms", "500");
    KafkaTransport transport =
        closeAfterTest(
            KafkaTransport.builder(config)
                .name("kafka-" + name)
                .sendTimeout(timeouts.transportSendTimeout)
                .build());
    start(
        OutboxRelay.builder(newPool(4), transport)
            .name(name)
            .batchSize(200)
            .pollInterval(Duration.ofMillis(100))
            .sendTimeout(timeouts.relaySendTimeout)
            .leaseDuration(Duration.ofSeconds(60))
            .outageBackoff(Duration.ofMillis(200), Duration.ofSeconds(2))
            .maxAttempts(maxAttempts)
            .listener(counters));
  }

  /**
   * Appends events for {@code aggregates} aggregates round-robin, {@value #PER_TRANSACTION} per
   * business transaction: each transaction inserts its business rows and their events on one
   * connection, auto-commit off, then commits. Every other transaction appends one by one, the
   * others as one batch.
   *
   * @param first the number of the first event, so later calls continue each aggregate's sequence
   */
  private List<OutboxEvent> appendInBusinessTransactions(
      String type, int first, int count, int aggregates) throws SQLException {
    List<OutboxEvent> all = new ArrayList<>(count);
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement business =
          c.prepareStatement("INSERT INTO business (id, aggregate_id, n) VALUES (?, ?, ?)")) {
        for (int tx = 0; tx * PER_TRANSACTION < count; tx++) {
          List<OutboxEvent> chunk = new ArrayList<>(PER_TRANSACTION);
          int end = Math.min(count, (tx + 1) * PER_TRANSACTION);
          for (int i = tx * PER_TRANSACTION; i < end; i++) {
            int n = first + i;
            String aggregateId = "agg-" + (n % aggregates);
            int seq = n / aggregates;
            OutboxEvent.Builder builder =
                OutboxEvent.builder(type, aggregateId, "Step" + seq)
                    .payload("{\"aggregate\":\"" + aggregateId + "\",\"seq\":" + seq + "}")
                    .header("correlation-id", "tx-" + (first / PER_TRANSACTION + tx))
                    .header("seq", Integer.toString(seq))
                    .schemaVersion(2)
                    .occurredAt(BASE.plusMillis(n));
            if (n % aggregates % 2 == 0) {
              builder.aggregateVersion(seq + 1L);
            }
            OutboxEvent e = builder.build();
            business.setString(1, e.id().toString());
            business.setString(2, aggregateId);
            business.setInt(3, seq);
            business.addBatch();
            chunk.add(e);
          }
          business.executeBatch();
          if (tx % 2 == 0) {
            Outbox.appendAll(c, chunk);
          } else {
            for (OutboxEvent e : chunk) {
              Outbox.append(c, e);
            }
          }
          c.commit();
          all.addAll(chunk);
        }
      }
    }
    return all;
  }

  /**
   * Checks that each aggregate stays on one partition and arrives in append order, counting only
   * the first copy of each event (what a deduplicating consumer sees).
   */
  private static void assertAggregateOrder(
      List<ConsumerRecord<String, byte[]>> records,
      Map<UUID, OutboxEvent> byId,
      int aggregates,
      int perAggregate) {
    Map<String, List<Integer>> expected = new HashMap<>();
    for (int a = 0; a < aggregates; a++) {
      List<Integer> seqs = new ArrayList<>();
      for (int s = 0; s < perAggregate; s++) {
        seqs.add(s);
      }
      expected.put("agg-" + a, seqs);
    }
    assertAggregateOrder(records, byId, aggregates, perAggregate, expected);
  }

  private static void assertAggregateOrder(
      List<ConsumerRecord<String, byte[]>> records,
      Map<UUID, OutboxEvent> byId,
      int aggregates,
      int perAggregate,
      Map<String, List<Integer>> expected) {
    // Records come per partition in offset order; one key lives on one partition, so the list
    // order restricted to one key is that key's offset order.
    Set<UUID> seen = new HashSet<>();
    Map<String, List<Integer>> seqsByKey = new HashMap<>();
    Map<String, Set<Integer>> partitionsByKey = new HashMap<>();
    for (ConsumerRecord<String, byte[]> r : records) {
      partitionsByKey.computeIfAbsent(r.key(), k -> new HashSet<>()).add(r.partition());
      UUID id = KafkaEvents.eventId(r).orElseThrow();
      if (seen.add(id)) {
        int seq = sequenceInAggregate(byId.get(id));
        seqsByKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(seq);
      }
    }
    assertThat(partitionsByKey).hasSize(aggregates);
    partitionsByKey.forEach((key, p) -> assertThat(p).as("partitions of %s", key).hasSize(1));
    seqsByKey.forEach(
        (key, seqs) ->
            assertThat(seqs)
                .as("order of %s", key)
                .hasSize(perAggregate)
                .isEqualTo(expected.get(key)));
  }

  /** The event's place in its aggregate: the {@code seq} header, or the digit in "A1", "D2"... */
  private static int sequenceInAggregate(OutboxEvent e) {
    String seq = e.headers().get("seq");
    if (seq != null) {
      return Integer.parseInt(seq);
    }
    return Integer.parseInt(e.eventType().substring(1)) - 1;
  }

  private static OutboxEvent event(String type, String aggregateId, String eventType, int bytes) {
    return OutboxEvent.builder(type, aggregateId, eventType)
        .payload(new byte[bytes], "application/octet-stream")
        .build();
  }

  private static Map<UUID, OutboxEvent> byId(List<OutboxEvent> events) {
    Map<UUID, OutboxEvent> byId = new LinkedHashMap<>();
    events.forEach(e -> byId.put(e.id(), e));
    return byId;
  }

  private static Set<UUID> ids(List<ConsumerRecord<String, byte[]>> records) {
    return Set.copyOf(KafkaTransportTest.eventIds(records));
  }

  private static Map<String, String> headers(ConsumerRecord<String, byte[]> r) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Header h : r.headers()) {
      out.put(h.key(), new String(h.value(), UTF_8));
    }
    return out;
  }

  /**
   * Gives PostgreSQL's planner statistics for the events appended so far, as autovacuum would on
   * its next round (up to a minute later). Without any, the ordered claim's anti-join is planned as
   * a bitmap scan that rechecks every pending row of the aggregate index for every candidate:
   * seconds per claim with thousands pending, which is the claim's business, not this test's.
   */
  private void analyze() throws SQLException {
    if (flavor() == Flavor.POSTGRES) {
      Sql.execute(ds, "ANALYZE outbox_event");
    }
  }
}
