package dev.outboxkit.debezium;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.kafka.KafkaTransport;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.TestDatabases;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The README's cut-over, run: relays publish part of a backlog and are closed, the connector starts
 * with the documented snapshot settings and publishes exactly the rest, and then the way back, CDC
 * to relay, by the README's steps, all while an application thread keeps appending. Relays and
 * connector publish to the same topic of one real broker, as in production; the consumer's view is
 * checked: every event there, none twice except the duplicates the README names for the way back,
 * and every aggregate's events in append order.
 */
class PostgresCutOverTest {
  private static final String TOPIC = "outbox.event.Acct";
  private static final int AGGREGATES = 20;
  private static final int BACKLOG = 3000;

  private KafkaTestBroker broker;
  private TestDatabase db;
  private final List<AutoCloseable> open = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    broker = KafkaTestBroker.startNew("cutover");
    broker.createTopic(TOPIC, 3, Map.of());
    broker.createTopic("outbox.event.Marker", 1, Map.of());
    broker.createTopic("stock." + TOPIC, 3, Map.of());
    broker.createTopic("stock.outbox.event.Marker", 1, Map.of());
    db = TestDatabases.createLogicalReplication(getClass().getSimpleName());
    try (Connection c = db.connect()) {
      OutboxSchema.create(c);
    }
    PostgresCapture.createPublication(db);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    if (db != null) {
      db.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void relay_to_cdc_and_back_publishes_every_event_once_but_the_named_duplicates()
      throws Exception {
    Appender appender = new Appender();
    appender.backlog(BACKLOG);
    Thread appending = new Thread(appender, "appender");
    appending.start();
    open.add(appender::stop);
    OutboxAdmin admin = OutboxAdmin.create(db.dataSource());
    KafkaTransport kafka =
        KafkaTransport.builder(Map.of("bootstrap.servers", broker.bootstrapServers())).build();
    open.add(kafka);

    // 1. Relays publish part of the backlog, then are closed.
    List<OutboxRelay> relays = startRelays(kafka);
    long giveUp = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (admin.count(EventStatus.PUBLISHED) < 600) {
      assertThat(System.nanoTime()).as("relays publish 600 events").isLessThan(giveUp);
      Thread.sleep(5);
    }
    for (OutboxRelay relay : relays) {
      relay.close();
    }
    assertThat(admin.count(EventStatus.IN_FLIGHT))
        .as("closed relays hand their claims back")
        .isZero();
    Set<String> byRelayBefore = ids("status = 'PUBLISHED'");
    // A relay closed mid-send may have sent events it could not mark; the README names them.
    Set<String> sentBeforeSwitch = new HashSet<>();
    for (ConsumerRecord<byte[], byte[]> r : broker.readAllRaw(List.of(TOPIC), 0)) {
      sentBeforeSwitch.add(new String(r.headers().lastHeader("id").value(), UTF_8));
    }
    Set<String> sentUnmarked = new HashSet<>(sentBeforeSwitch);
    sentUnmarked.removeAll(byRelayBefore);
    assertThat(admin.count(EventStatus.PENDING)).as("a rest of the backlog is left").isPositive();

    // 2. The connector starts with the README's snapshot settings and publishes the rest. Next to
    // it, Debezium's stock router with its default snapshot, to see what that would publish.
    String name = "okt_cutover_" + Long.toHexString(System.nanoTime());
    Properties connector = PostgresCapture.connector(db, name, "initial");
    connector.put("transforms", "outbox");
    connector.put("transforms.outbox.type", OutboxEventRouter.class.getName());
    CdcEngine cdc =
        CdcEngine.start(
            name, connector, CdcRecordsContractTest.moduleWorker(), broker.bootstrapServers(), "");
    open.add(cdc);
    CdcEngine stock = startStockEngine(name + "_stock");
    open.add(stock);
    PostgresCapture.awaitSlotActive(db, name);
    Barriers.barrier(db.dataSource(), cdc);
    // Under CDC the relay marks nothing: the README's purge statement keeps the table small. It
    // deletes rows right after their commit here, to show the connector still publishes them.
    Purger purger = new Purger();
    Thread purging = new Thread(purger, "purger");
    purging.start();
    Thread.sleep(1500); // appends and purges go on while the connector streams
    purger.stop(); // the README: stop purging before the way back
    purging.join();
    assertThat(purger.failure.get()).isNull();
    assertThat(purger.purged).as("rows purged under CDC").isPositive();

    // 3. The way back, the README's steps: watermark, wait for open transactions, wait for the
    // connector to confirm the WAL position, stop it, mark, start relays.
    long watermark;
    String xmax;
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT (SELECT max(seq) FROM outbox_event),"
                    + " pg_snapshot_xmax(pg_current_snapshot())::text")) {
      rs.next();
      watermark = rs.getLong(1);
      xmax = rs.getString(2);
    }
    awaitTrue("SELECT pg_snapshot_xmin(pg_current_snapshot()) >= ?::xid8", xmax);
    String lsn = single("SELECT pg_current_wal_lsn()::text");
    awaitTrue(
        "SELECT confirmed_flush_lsn >= ?::pg_lsn FROM pg_replication_slots WHERE slot_name = '"
            + name
            + "'",
        lsn);
    cdc.close();
    stock.close();
    int marked;
    try (Connection c = db.connect();
        PreparedStatement s =
            c.prepareStatement(
                "UPDATE outbox_event SET status = 'PUBLISHED', published_at = now()"
                    + " WHERE status = 'PENDING' AND seq <= ?")) {
      s.setLong(1, watermark);
      marked = s.executeUpdate();
    }
    relays = startRelays(kafka);
    Thread.sleep(1000); // appends go on under the relays
    appender.stop();
    appending.join();
    assertThat(appender.failure.get()).isNull();
    // Wait while the relays run: one relay's drain() can end while the other's worker holds an
    // aggregate's earlier event, and a closed relay claims nothing more.
    Await.until(
        () -> admin.count(EventStatus.PENDING) == 0 && admin.count(EventStatus.IN_FLIGHT) == 0,
        Duration.ofSeconds(60),
        () -> "the relays publish the rest; statuses " + admin.countByStatus());
    for (OutboxRelay relay : relays) {
      relay.close();
    }
    assertThat(admin.count(EventStatus.PENDING)).isZero();
    assertThat(admin.count(EventStatus.IN_FLIGHT)).isZero();

    // The consumer's view.
    List<ConsumerRecord<byte[], byte[]>> records = broker.readAllRaw(List.of(TOPIC), 0);
    Map<String, Integer> copies = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      copies.merge(new String(r.headers().lastHeader("id").value(), UTF_8), 1, Integer::sum);
    }
    Set<String> appended = appender.committed;
    Set<String> lost = new HashSet<>(appended);
    lost.removeAll(copies.keySet());
    Set<String> byConnector = new HashSet<>();
    for (SourceRecord r : cdc.published()) {
      if (r.topic().equals(TOPIC)) {
        byConnector.add(CdcEngine.eventId(r));
      }
    }
    Set<String> afterWatermark = ids("seq > " + watermark);
    Set<String> duplicates = new HashSet<>();
    copies.forEach(
        (id, n) -> {
          if (n > 1) {
            duplicates.add(id);
          }
        });
    Set<String> wayBackDuplicates = new HashSet<>(byConnector);
    wayBackDuplicates.retainAll(afterWatermark);
    Set<String> namedDuplicates = new HashSet<>(wayBackDuplicates);
    namedDuplicates.addAll(sentUnmarked);
    Set<String> connectorAndRelayBefore = new HashSet<>(byConnector);
    connectorAndRelayBefore.retainAll(byRelayBefore);
    long byRelayAfter = records.size() - sentBeforeSwitch.size() - byConnector.size();
    Set<String> stockRepublished = new HashSet<>();
    for (SourceRecord r : stock.published()) {
      if (byRelayBefore.contains(CdcEngine.eventId(r))) {
        stockRepublished.add(CdcEngine.eventId(r));
      }
    }

    String report =
        String.format(
            "cut-over relay -> CDC -> relay on PostgreSQL 14, appends running throughout:%n"
                + "| | events |%n|---|---|%n"
                + "| appended | %d |%n"
                + "| published by the relays before the switch | %d |%n"
                + "| of which sent but not marked when the relays closed | %d |%n"
                + "| published by the connector (snapshot + streaming) | %d |%n"
                + "| marked PUBLISHED at the way back (seq <= %d) | %d |%n"
                + "| published by the relays after the way back | %d |%n"
                + "| records on the topic | %d |%n"
                + "| duplicates | %d |%n"
                + "| named by the README: connector-published after the watermark | %d |%n"
                + "| published by the connector and by the relays before the switch | %d |%n"
                + "| purged under CDC, right after commit | %d |%n"
                + "| lost | %d |%n"
                + "| stock router's default snapshot: relay-published events it sent again | %d |",
            appended.size(),
            sentBeforeSwitch.size(),
            sentUnmarked.size(),
            byConnector.size(),
            watermark,
            marked,
            byRelayAfter,
            records.size(),
            duplicates.size(),
            wayBackDuplicates.size(),
            connectorAndRelayBefore.size(),
            purger.purged,
            lost.size(),
            stockRepublished.size());
    System.out.println(report);

    assertThat(lost).as(report).isEmpty();
    assertThat(connectorAndRelayBefore)
        .as("the snapshot leaves out what the relays published")
        .isEmpty();
    assertThat(namedDuplicates).as("the README's named duplicates").containsAll(duplicates);
    assertThat(byConnector).as("the connector published part of the traffic").isNotEmpty();
    assertThat(byRelayAfter).as("the relays took over again").isPositive();
    assertThat(stockRepublished)
        .as("the stock router's default snapshot republishes finished rows")
        .isEqualTo(byRelayBefore);
    assertPerAggregateOrder(records);
  }

  /** For a consumer that skips ids it has seen, each aggregate's events arrive in append order. */
  private static void assertPerAggregateOrder(List<ConsumerRecord<byte[], byte[]>> records) {
    Set<String> seen = new HashSet<>();
    Map<String, Integer> last = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : records) { // partition by partition, offset order
      String id = new String(r.headers().lastHeader("id").value(), UTF_8);
      if (!seen.add(id)) {
        continue;
      }
      String aggregate = new String(r.key(), UTF_8);
      int n = Integer.parseInt(new String(r.value(), UTF_8).replaceAll("\\D", ""));
      Integer before = last.put(aggregate, n);
      assertThat(n)
          .as("event %d of %s after event %s", n, aggregate, before)
          .isGreaterThan(before == null ? -1 : before);
    }
  }

  private List<OutboxRelay> startRelays(KafkaTransport kafka) {
    List<OutboxRelay> relays = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      OutboxRelay relay =
          OutboxRelay.builder(db.dataSource(), kafka)
              .name("relay-" + i)
              .batchSize(50)
              .pollInterval(Duration.ofMillis(50))
              .build();
      relay.start();
      relays.add(relay);
      open.add(relay);
    }
    return relays;
  }

  private CdcEngine startStockEngine(String name) {
    Properties p = PostgresCapture.connector(db, name, "initial");
    p.remove("snapshot.select.statement.overrides");
    p.remove("snapshot.select.statement.overrides." + db.name() + ".outbox_event");
    CdcRecordsContractTest.stockRouter(p);
    return CdcEngine.start(
        name, p, CdcRecordsContractTest.oldReadmeWorker(), broker.bootstrapServers(), "stock.");
  }

  private Set<String> ids(String where) throws Exception {
    Set<String> ids = new HashSet<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id FROM outbox_event WHERE " + where)) {
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
    }
    return ids;
  }

  private String single(String sql) throws Exception {
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private void awaitTrue(String sql, String parameter) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    try (Connection c = db.connect();
        PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, parameter);
      while (true) {
        try (ResultSet rs = s.executeQuery()) {
          if (rs.next() && rs.getBoolean(1)) {
            return;
          }
        }
        assertThat(System.nanoTime()).as("%s with %s", sql, parameter).isLessThan(deadline);
        Thread.sleep(50);
      }
    }
  }

  /**
   * The application: one thread appending one event per transaction to {@value #AGGREGATES}
   * aggregates in turn, each event's payload its number within its aggregate. One thread, so commit
   * order is append order and the order check is exact.
   */
  private final class Appender implements Runnable {
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final int[] next = new int[AGGREGATES];
    private final Set<String> committed = ConcurrentHashMap.newKeySet();
    private int turn;

    void backlog(int events) throws Exception {
      List<OutboxEvent> batch = new ArrayList<>();
      for (int i = 0; i < events; i++) {
        batch.add(nextEvent());
      }
      try (Connection c = db.connect()) {
        c.setAutoCommit(false);
        Outbox.appendAll(c, batch);
        c.commit();
      }
      for (OutboxEvent e : batch) {
        committed.add(e.id().toString());
      }
    }

    private OutboxEvent nextEvent() {
      int aggregate = turn++ % AGGREGATES;
      int n = next[aggregate]++;
      return OutboxEvent.builder("Acct", "a" + aggregate, "Posted")
          .payload("{\"n\":" + n + "}")
          .build();
    }

    @Override
    public void run() {
      // A safety net only (stop() ends it): far beyond the test's own waits on a slow machine.
      long giveUp = System.nanoTime() + Duration.ofMinutes(10).toNanos();
      try (Connection c = db.connect()) {
        c.setAutoCommit(false);
        while (running.get() && System.nanoTime() < giveUp) {
          OutboxEvent e = nextEvent();
          Outbox.append(c, e);
          c.commit();
          committed.add(e.id().toString());
          Thread.sleep(1);
        }
      } catch (Exception | AssertionError e) {
        failure.set(e);
      }
    }

    void stop() {
      running.set(false);
    }
  }

  /** The README's purge under CDC, in a loop, with seconds for its days. */
  private final class Purger implements Runnable {
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile int purged;

    @Override
    public void run() {
      try (Connection c = db.connect();
          PreparedStatement purge =
              c.prepareStatement(
                  "DELETE FROM outbox_event"
                      + " WHERE seq IN (SELECT seq FROM outbox_event"
                      + "                WHERE occurred_at < now() - INTERVAL '0.2 seconds'"
                      + "                ORDER BY seq LIMIT 1000)")) {
        while (running.get()) {
          int n = purge.executeUpdate();
          purged += n;
          if (n == 0) {
            Thread.sleep(50);
          }
        }
      } catch (Exception | AssertionError e) {
        failure.set(e);
      }
    }

    void stop() {
      running.set(false);
    }
  }
}
