package dev.outboxkit.debezium;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.CancelOutcome;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.kafka.KafkaEvents;
import dev.outboxkit.kafka.KafkaTransport;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import dev.outboxkit.testkit.logging.LogCapture;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The proof behind "switch to CDC without consumers noticing": for a spread of events, the record a
 * Debezium connector publishes through {@link OutboxEventRouter} equals, field by field, the record
 * {@code KafkaTransport} publishes through the relay, each on a real in-JVM Kafka broker of its
 * own. The same events also go through Debezium's stock {@code EventRouter}, once with the
 * configuration the README gave before this module and once with every option tuned towards the
 * transport's records, and the printed table shows what a consumer receives from each.
 *
 * <p>One test per database: Debezium's embedded engine runs the real connector, the transformations
 * run as in a Connect worker, and {@link ConnectWorkerConversion} converts and produces the records
 * as the worker does.
 */
abstract class CdcRecordsContractTest {
  private static final List<String> TOPICS =
      List.of(
          "outbox.event.Order",
          "outbox.event.Customer",
          "outbox.event.Blob",
          "outbox.event.Invoice",
          "outbox.event.Marker",
          "outbox.event.Reminder",
          "outbox.event.Quote",
          "outbox.event.Draft",
          "billing.invoices");

  private static KafkaTestBroker relayBroker;
  private static KafkaTestBroker cdcBroker;

  TestDatabase db;
  private final List<CdcEngine> engines = new ArrayList<>();
  private final String run = Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36);

  /** A fresh database (schema) on a server the connector can capture. */
  abstract TestDatabase createDatabase();

  /** Server-side set-up after the table exists (the insert-only publication on PostgreSQL). */
  abstract void prepareCapture(TestDatabase db) throws Exception;

  /** The connector's own properties for an engine named {@code engine}, without transforms. */
  abstract Properties connector(TestDatabase db, String engine);

  /** Blocks until the engine captures every later commit (PostgreSQL: its slot is active). */
  abstract void awaitCapturing(TestDatabase db, String engine) throws Exception;

  /** Which database and connector, for the printed table's title. */
  abstract String describe();

  @BeforeAll
  static void brokers() {
    relayBroker = KafkaTestBroker.startNew("relay");
    cdcBroker = KafkaTestBroker.startNew("cdc");
    for (String topic : TOPICS) {
      relayBroker.createTopic(topic, 3, Map.of());
      for (String prefix : List.of("", "old.", "best.")) {
        cdcBroker.createTopic(prefix + topic, 3, Map.of());
      }
    }
  }

  @AfterAll
  static void stopBrokers() {
    if (relayBroker != null) {
      relayBroker.close();
    }
    if (cdcBroker != null) {
      cdcBroker.close();
    }
  }

  @BeforeEach
  void table() throws Exception {
    db = createDatabase();
    try (Connection c = db.connect()) {
      OutboxSchema.create(c);
    }
    prepareCapture(db);
  }

  @AfterEach
  void stop() {
    for (CdcEngine e : engines) {
      e.close();
    }
    if (db != null) {
      db.close();
    }
  }

  /** The configuration the README documents, with this module. */
  Properties moduleConnector(TestDatabase db, String engine) {
    Properties p = connector(db, engine);
    p.put("transforms", "outbox");
    p.put("transforms.outbox.type", OutboxEventRouter.class.getName());
    return p;
  }

  /** Puts an {@link OpCounter} named after the engine first in the chain. */
  static Properties counted(Properties p, String engine) {
    p.put("transforms", "count," + p.getProperty("transforms"));
    p.put("transforms.count.type", OpCounter.class.getName());
    p.put("transforms.count.name", engine);
    return p;
  }

  /** The worker converters the README documents, with this module. */
  static Map<String, String> moduleWorker() {
    return Map.of(
        "key.converter", "org.apache.kafka.connect.storage.StringConverter",
        "value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter",
        "header.converter", "org.apache.kafka.connect.storage.SimpleHeaderConverter");
  }

  /** Debezium's stock router with the configuration the README gave before this module. */
  Properties oldReadmeConnector(TestDatabase db, String engine) {
    Properties p = connector(db, engine);
    stockRouter(p);
    p.put(
        "transforms.outbox.table.fields.additional.placement",
        "event_type:header:outbox-event-type,aggregate_type:header:outbox-aggregate-type,"
            + "schema_version:header:outbox-schema-version");
    return p;
  }

  /** The old README set only the key converter; the worker's defaults did the rest. */
  static Map<String, String> oldReadmeWorker() {
    return Map.of("key.converter", "org.apache.kafka.connect.storage.StringConverter");
  }

  /**
   * Debezium's stock router as close to the transport as its options go: every column the transport
   * sends placed as a header under the transport's name, the whole headers column as one header,
   * Debezium's context headers off, the module's converters.
   */
  Properties bestStockConnector(TestDatabase db, String engine) {
    Properties p = connector(db, engine);
    stockRouter(p);
    p.put("extended.headers.enabled", "false");
    p.put(
        "transforms.outbox.table.fields.additional.placement",
        "event_type:header:outbox-event-type,aggregate_type:header:outbox-aggregate-type,"
            + "schema_version:header:outbox-schema-version,content_type:header:content-type,"
            + "occurred_at:header:outbox-occurred-at,tenant:header:outbox-tenant,"
            + "aggregate_version:header:outbox-aggregate-version,headers:header:headers");
    return p;
  }

  static void stockRouter(Properties p) {
    p.put("transforms", "outbox");
    p.put("transforms.outbox.type", "io.debezium.transforms.outbox.EventRouter");
    p.put("transforms.outbox.table.field.event.id", "id");
    p.put("transforms.outbox.table.field.event.key", "aggregate_id");
    p.put("transforms.outbox.table.field.event.payload", "payload");
    p.put("transforms.outbox.route.by.field", "aggregate_type");
    p.put("transforms.outbox.route.topic.replacement", "outbox.event.${routedByValue}");
  }

  /** One way to publish from the table by CDC, and where its records land on the CDC broker. */
  private static final class Variant {
    final String title;
    final CdcEngine engine;
    final String topicPrefix;
    Map<String, List<ConsumerRecord<byte[], byte[]>>> records;

    Variant(String title, CdcEngine engine, String topicPrefix) {
      this.title = title;
      this.engine = engine;
      this.topicPrefix = topicPrefix;
    }
  }

  @Test
  void cdc_records_equal_kafka_transport_records_field_by_field() throws Exception {
    String moduleName = engineName("outboxkit");
    Variant module =
        new Variant(
            "with OutboxEventRouter",
            start(
                moduleName,
                counted(moduleConnector(db, moduleName), moduleName),
                moduleWorker(),
                ""),
            "");
    String oldName = engineName("readme");
    Variant oldReadme =
        new Variant(
            "stock EventRouter, README config before",
            start(
                oldName,
                counted(oldReadmeConnector(db, oldName), oldName),
                oldReadmeWorker(),
                "old."),
            "old.");
    String bestName = engineName("best");
    Variant best =
        new Variant(
            "stock EventRouter, every option tuned",
            start(
                bestName,
                counted(bestStockConnector(db, bestName), bestName),
                moduleWorker(),
                "best."),
            "best.");
    List<Variant> variants = List.of(module, oldReadme, best);
    CdcEngine[] engines = {module.engine, oldReadme.engine, best.engine};
    awaitCapturing(db, moduleName);
    awaitCapturing(db, oldName);
    awaitCapturing(db, bestName);
    Barriers.firstBarrier(db.dataSource(), engines);

    List<OutboxEvent> events = spread();
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      Outbox.appendAll(c, events.subList(0, 2)); // two events, one transaction
      c.commit();
      for (OutboxEvent e : events.subList(2, events.size())) {
        Outbox.append(c, e);
        c.commit();
      }
    }
    // Withdrawn events: one superseded in the very transaction that appended it, one cancelled in
    // a later one. The relay never sends either; change data capture has their inserts.
    OutboxEvent draft = draft("d-1", 1).supersedeKey("draft").build();
    OutboxEvent saved = draft("d-1", 2).supersedeKey("draft").build();
    OutboxEvent cancelled = draft("d-2", 1).build();
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      Outbox.append(c, draft);
      Outbox.append(c, saved); // supersedes the draft
      Outbox.append(c, cancelled);
      c.commit();
      assertThat(Outbox.cancel(c, cancelled.id())).isEqualTo(CancelOutcome.CANCELLED);
      c.commit();
    }
    // Their UPDATEs reach the engines before the log capture below starts.
    Barriers.barrier(db.dataSource(), engines);
    Instant now = Instant.now();
    OutboxEvent delayed =
        OutboxEvent.builder("Reminder", "r-1", "ReminderDue")
            .payload("{\"remind\":true}")
            .delay(Duration.ofHours(1))
            .build();
    OutboxEvent expired =
        OutboxEvent.builder("Quote", "q-1", "QuoteOffered")
            .payload("{\"price\":10}")
            .expiresAt(now.minusSeconds(60))
            .build();
    try (LogCapture logs = LogCapture.start()) {
      Barriers.append(db.dataSource(), delayed);
      Barriers.append(db.dataSource(), expired);
      Barriers.barrier(db.dataSource(), engines); // everything above has gone through every engine
      List<String> names = List.of(moduleName, oldName, bestName);
      int[] updatesBefore = new int[names.size()];
      for (int i = 0; i < names.size(); i++) {
        updatesBefore[i] = OpCounter.count(names.get(i), "u");
      }

      try (KafkaTransport kafka =
              KafkaTransport.builder(Map.of("bootstrap.servers", relayBroker.bootstrapServers()))
                  .build();
          OutboxRelay relay = OutboxRelay.builder(db.dataSource(), kafka).batchSize(7).build()) {
        relay.drain();
      }
      // The relay's UPDATEs (claims, acknowledgements) reach the engines before this marker.
      Barriers.barrier(db.dataSource(), engines);

      assertThat(
              logs.lines().stream()
                  .filter(l -> l.logger().equals(OutboxEventRouter.class.getName()))
                  .filter(l -> l.level().equals("WARN"))
                  .map(LogCapture.Line::text))
          .as("the module warns that the delayed event went out at once")
          .singleElement()
          .asString()
          .contains(delayed.id().toString(), "cannot honour a delay");
      long updateWarnings =
          logs.lines().stream()
              .filter(l -> l.level().equals("WARN"))
              .filter(l -> l.text().contains("Unexpected update message received"))
              .count();
      int[] updates = new int[names.size()];
      for (int i = 0; i < names.size(); i++) {
        updates[i] = OpCounter.count(names.get(i), "u") - updatesBefore[i];
      }
      assertThat(updateWarnings)
          .as("the stock router warns once per UPDATE it sees")
          .isEqualTo(updates[1] + updates[2]);

      // The delayed event: CDC publishes it at commit, the relay waits for it.
      assertThat(module.engine.publishedIds()).contains(delayed.id().toString());
      assertThat(relayBroker.readAllRaw(List.of("outbox.event.Reminder"), 0)).isEmpty();
      // The expired event: neither the relay nor the module publishes it; the stock router does.
      assertThat(relayBroker.readAllRaw(List.of("outbox.event.Quote"), 0)).isEmpty();
      assertThat(cdcBroker.readAllRaw(List.of("outbox.event.Quote"), 0)).isEmpty();
      for (Variant stock : List.of(oldReadme, best)) {
        assertThat(stock.engine.publishedIds())
            .contains(
                expired.id().toString(),
                delayed.id().toString(),
                draft.id().toString(),
                cancelled.id().toString());
      }
      assertThat(OpCounter.count(moduleName, "c")).as("inserts seen").isPositive();
      // Withdrawn events: the relay sends only the one that superseded the draft; the module has
      // published every insert, because each was captured as inserted (PENDING).
      assertThat(
              relayBroker.readAllRaw(List.of("outbox.event.Draft"), 1).stream()
                  .map(r -> KafkaEvents.eventId(r).orElseThrow()))
          .containsExactly(saved.id());
      assertThat(module.engine.publishedIds())
          .contains(draft.id().toString(), saved.id().toString(), cancelled.id().toString());

      Table table = compare(events, variants);
      table.extra(
          "delayed event (delay 1 h)",
          "not yet (the relay waits)",
          List.of("at commit, one WARN per task", "at commit", "at commit"));
      table.extra(
          "event superseded in its own transaction",
          "never (SUPERSEDED)",
          List.of("published (the insert is captured)", "published", "published"));
      table.extra(
          "event cancelled after its commit",
          "never (CANCELLED)",
          List.of("published (the insert is captured)", "published", "published"));
      table.extra(
          "expired event (expiresAt passed)",
          "never (the relay marks it EXPIRED)",
          List.of("never (dropped)", "published", "published"));
      table.extra(
          "the relay's UPDATEs while it published the events",
          "-",
          List.of(
              updates[0] == 0
                  ? "none reach the connector (insert-only publication)"
                  : updates[0] + " change events, dropped without a log line",
              updatesSeen(updates[1]),
              updatesSeen(updates[2])));
      String printed = table.print(describe());
      System.out.println(printed);
      assertThat(table.differences(0))
          .as("fields where the module's records differ from KafkaTransport's:%n%s", printed)
          .isEmpty();
      // What the README says a consumer got without the module: the table's rows, checked.
      for (String field :
          List.of(
              "topic",
              "value (bytes)",
              "header content-type",
              "header outbox-occurred-at",
              "header outbox-tenant",
              "user headers (one per name, in order)",
              "other headers",
              "record timestamp")) {
        assertThat(table.differs(1, field)).as("old README config, %s", field).isTrue();
      }
      for (String field :
          List.of(
              "topic",
              "header outbox-occurred-at",
              "user headers (one per name, in order)",
              "null-valued headers",
              "record timestamp")) {
        assertThat(table.differs(2, field)).as("tuned stock router, %s", field).isTrue();
      }
      for (String field : List.of("key (bytes)", "partition (murmur2 of the key)", "header id")) {
        assertThat(table.differs(1, field)).as("old README config, %s", field).isFalse();
        assertThat(table.differs(2, field)).as("tuned stock router, %s", field).isFalse();
      }
    }
  }

  private static String updatesSeen(int updates) {
    return updates == 0
        ? "none reach the connector (insert-only publication)"
        : updates + " change events, each a WARN \"Unexpected update message received\"";
  }

  private Table compare(List<OutboxEvent> events, List<Variant> variants) {
    Map<String, List<ConsumerRecord<byte[], byte[]>>> relayed = read(relayBroker, "");
    for (Variant v : variants) {
      v.records = read(cdcBroker, v.topicPrefix);
    }
    List<String> titles = new ArrayList<>();
    for (Variant v : variants) {
      titles.add(v.title);
    }
    Table table = new Table(events.size(), titles);
    for (OutboxEvent e : events) {
      String id = e.id().toString();
      List<ConsumerRecord<byte[], byte[]>> t = relayed.getOrDefault(id, List.of());
      assertThat(t).as("KafkaTransport records of %s", e).hasSize(1);
      ConsumerRecord<byte[], byte[]> tr = t.get(0);
      List<ConsumerRecord<byte[], byte[]>> cdc = new ArrayList<>();
      List<SourceRecord> sources = new ArrayList<>();
      for (Variant v : variants) {
        List<ConsumerRecord<byte[], byte[]>> found = v.records.getOrDefault(id, List.of());
        assertThat(found).as("%s records of %s", v.title, e).hasSize(1);
        cdc.add(found.get(0));
        sources.add(source(v.engine, id));
      }
      table.row("records per event", 1, cdc, r -> 1, String::valueOf);
      // The stock routers' records went to prefixed copies of the topics on the CDC broker.
      table.row(
          "topic",
          tr.topic(),
          cdc,
          r -> r.topic().replaceFirst("^(old|best)\\.", ""),
          String::valueOf);
      table.row(
          "partition (murmur2 of the key)",
          tr.partition(),
          cdc,
          r -> r.partition(),
          String::valueOf);
      table.row("key (bytes)", tr.key(), cdc, r -> r.key(), CdcRecordsContractTest::text);
      table.row("value (bytes)", tr.value(), cdc, r -> r.value(), CdcRecordsContractTest::text);
      for (String name : TRANSPORT_HEADERS) {
        table.row(
            "header " + name,
            values(tr, name),
            cdc,
            r -> values(r, name),
            CdcRecordsContractTest::show);
      }
      table.row(
          "user headers (one per name, in order)",
          userHeaders(tr),
          cdc,
          CdcRecordsContractTest::userHeaders,
          CdcRecordsContractTest::show);
      table.row(
          "other headers",
          otherHeaders(tr),
          cdc,
          CdcRecordsContractTest::otherHeaders,
          CdcRecordsContractTest::show);
      table.row(
          "null-valued headers",
          nullHeaders(tr),
          cdc,
          CdcRecordsContractTest::nullHeaders,
          String::valueOf);
      table.row(
          "all headers, in order",
          headers(tr),
          cdc,
          CdcRecordsContractTest::headers,
          CdcRecordsContractTest::show);
      List<String> stamps = new ArrayList<>();
      for (SourceRecord s : sources) {
        stamps.add(s.timestamp() == null ? "producer's send time" : "Debezium's ts_ms");
      }
      table.rowOf("record timestamp", "producer's send time", stamps, Function.identity());
      assertThat(tr.timestampType()).isEqualTo(cdc.get(0).timestampType());
    }
    return table;
  }

  private static SourceRecord source(CdcEngine engine, String id) {
    for (SourceRecord r : engine.published()) {
      if (id.equals(CdcEngine.eventId(r))) {
        return r;
      }
    }
    throw new AssertionError("no record of " + id);
  }

  static final List<String> TRANSPORT_HEADERS =
      List.of(
          KafkaEvents.HEADER_EVENT_ID,
          KafkaEvents.HEADER_EVENT_TYPE,
          KafkaEvents.HEADER_AGGREGATE_TYPE,
          KafkaEvents.HEADER_SCHEMA_VERSION,
          KafkaEvents.HEADER_CONTENT_TYPE,
          KafkaEvents.HEADER_OCCURRED_AT,
          KafkaEvents.HEADER_TENANT,
          KafkaEvents.HEADER_AGGREGATE_VERSION);

  private static OutboxEvent.Builder draft(String aggregateId, int version) {
    return OutboxEvent.builder("Draft", aggregateId, "DraftSaved")
        .payload("{\"v\":" + version + "}")
        .aggregateVersion(version);
  }

  /** The events compared: every kind of payload, header and routing the transport handles. */
  static List<OutboxEvent> spread() {
    List<OutboxEvent> events = new ArrayList<>();
    events.add(
        OutboxEvent.builder("Order", "o-1", "OrderPlaced")
            .payload("{\"orderId\":\"o-1\",\"total\":12.50,\"lines\":[{\"sku\":\"A\",\"qty\":2}]}")
            .header("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
            .header("tracestate", "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
            .header("correlation-id", "c-42")
            .occurredAt(Instant.parse("2026-01-02T03:04:05.123456Z"))
            .build());
    events.add(
        OutboxEvent.builder("Order", "o-1", "OrderPaid")
            .payload("{\"orderId\":\"o-1\",\"paid\":true}")
            .schemaVersion(2)
            .aggregateVersion(2)
            .header("correlation-id", "c-42")
            .occurredAt(Instant.parse("2026-01-02T03:04:06Z"))
            .build());
    events.add(
        OutboxEvent.builder("Customer", "kunde-\u00e4-1", "CustomerRenamed")
            .payload("{\"name\":\"Zo\u00eb \u4e16\u754c \ud83d\ude80\"}")
            .header("x-note", "na\u00efve \u2713 \ud83d\ude00")
            .tenant("acme")
            .occurredAt(Instant.parse("2026-01-02T03:04:07.120Z"))
            .build());
    byte[] binary = new byte[256];
    for (int i = 0; i < binary.length; i++) {
      binary[i] = (byte) i;
    }
    events.add(
        OutboxEvent.builder("Blob", "b-1", "BlobStored")
            .payload(binary, "application/octet-stream")
            .header("x-quoted", "say \"hi\" \\ back\tslash")
            .build());
    events.add(
        OutboxEvent.builder("Blob", "b-2", "BlobCleared")
            .payload(new byte[0], "application/octet-stream")
            .build());
    events.add(
        OutboxEvent.builder("Invoice", "i-1", "InvoiceIssued")
            .payload("{\"invoice\":\"i-1\"}")
            .destination("billing.invoices")
            .tenant("globex")
            .schemaVersion(3)
            .aggregateVersion(9_000_000_000L)
            .header("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00")
            .build());
    events.add(
        OutboxEvent.builder("Invoice", "i-2", "InvoiceIssued")
            .payload("{\"invoice\":\"i-2\"}")
            .build());
    events.add(
        OutboxEvent.builder("Order", "o-2", "OrderNoted")
            .payload("plain text, not JSON".getBytes(UTF_8), "text/plain; charset=utf-8")
            .header("correlation-id", "c-43")
            .build());
    for (int i = 3; i <= 12; i++) {
      events.add(
          OutboxEvent.builder("Order", "o-" + i, "OrderPlaced")
              .payload("{\"orderId\":\"o-" + i + "\"}")
              .build());
    }
    return events;
  }

  CdcEngine start(
      String name, Properties connector, Map<String, String> worker, String topicPrefix) {
    CdcEngine engine =
        CdcEngine.start(name, connector, worker, cdcBroker.bootstrapServers(), topicPrefix);
    engines.add(engine);
    return engine;
  }

  /** A name unique to this test run, also used for slots and topic prefixes. */
  String engineName(String role) {
    return "okt_" + role + "_" + run;
  }

  /** The broker's records on the test's topics (with a prefix), by event id. */
  private static Map<String, List<ConsumerRecord<byte[], byte[]>>> read(
      KafkaTestBroker broker, String prefix) {
    List<String> topics = new ArrayList<>();
    for (String topic : TOPICS) {
      topics.add(prefix + topic);
    }
    Map<String, List<ConsumerRecord<byte[], byte[]>>> byId = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : broker.readAllRaw(topics, 0)) {
      Header id = r.headers().lastHeader("id");
      String key = id == null || id.value() == null ? "(none)" : new String(id.value(), UTF_8);
      byId.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
    }
    return byId;
  }

  private static List<String> values(ConsumerRecord<byte[], byte[]> r, String name) {
    List<String> values = new ArrayList<>();
    for (Header h : r.headers().headers(name)) {
      values.add(h.value() == null ? null : new String(h.value(), UTF_8));
    }
    return values;
  }

  private static List<String> userHeaders(ConsumerRecord<byte[], byte[]> r) {
    List<String> user = new ArrayList<>();
    for (Header h : r.headers()) {
      if (!TRANSPORT_HEADERS.contains(h.key()) && !h.key().startsWith("__debezium")) {
        user.add(h.key() + "=" + (h.value() == null ? null : new String(h.value(), UTF_8)));
      }
    }
    return user;
  }

  private static Set<String> otherHeaders(ConsumerRecord<byte[], byte[]> r) {
    Set<String> other = new LinkedHashSet<>();
    for (Header h : r.headers()) {
      if (h.key().startsWith("__debezium")) {
        other.add(h.key());
      }
    }
    return other;
  }

  private static long nullHeaders(ConsumerRecord<byte[], byte[]> r) {
    long n = 0;
    for (Header h : r.headers()) {
      if (h.value() == null) {
        n++;
      }
    }
    return n;
  }

  private static List<String> headers(ConsumerRecord<byte[], byte[]> r) {
    List<String> all = new ArrayList<>();
    for (Header h : r.headers()) {
      all.add(h.key() + "=" + (h.value() == null ? null : new String(h.value(), UTF_8)));
    }
    return all;
  }

  private static String text(byte[] bytes) {
    if (bytes == null) {
      return "null";
    }
    String s = new String(bytes, UTF_8);
    boolean printable = Arrays.equals(s.getBytes(UTF_8), bytes) && s.chars().allMatch(c -> c >= 32);
    String shown = printable ? s : bytes.length + " bytes";
    return shown.length() > 60 ? shown.substring(0, 57) + "..." : shown;
  }

  private static String show(Object value) {
    String s = String.valueOf(value);
    return s.length() > 150 ? s.substring(0, 147) + "..." : s;
  }

  /**
   * Field-by-field tally: per field, how many events' values each way of publishing shares with the
   * transport's record, and the first difference of each.
   */
  static final class Table {
    private final int events;
    private final List<String> titles;
    private final Map<String, int[]> equal = new LinkedHashMap<>();
    private final Map<String, String[]> examples = new HashMap<>();
    private final Map<String, String[]> extras = new LinkedHashMap<>();

    Table(int events, List<String> titles) {
      this.events = events;
      this.titles = titles;
    }

    /** One field of one event: the transport's value against each record's. */
    <T> void row(
        String field,
        T transport,
        List<ConsumerRecord<byte[], byte[]>> records,
        Function<ConsumerRecord<byte[], byte[]>, T> value,
        Function<T, String> show) {
      List<T> values = new ArrayList<>();
      for (ConsumerRecord<byte[], byte[]> r : records) {
        values.add(value.apply(r));
      }
      rowOf(field, transport, values, show);
    }

    <T> void rowOf(String field, T transport, List<T> values, Function<T, String> show) {
      int[] counts = equal.computeIfAbsent(field, f -> new int[titles.size()]);
      String[] example = examples.computeIfAbsent(field, f -> new String[titles.size()]);
      for (int i = 0; i < values.size(); i++) {
        if (same(transport, values.get(i))) {
          counts[i]++;
        } else if (example[i] == null) {
          example[i] = show.apply(transport) + " -> " + show.apply(values.get(i));
        }
      }
    }

    /** A row stated by the test from what it checked, not tallied. */
    void extra(String field, String transport, List<String> cells) {
      List<String> row = new ArrayList<>();
      row.add(transport);
      row.addAll(cells);
      extras.put(field, row.toArray(new String[0]));
    }

    private static boolean same(Object a, Object b) {
      if (a instanceof byte[] && b instanceof byte[]) {
        return Arrays.equals((byte[]) a, (byte[]) b);
      }
      return Objects.equals(a, b);
    }

    /** The fields where column {@code column}'s records differ from the transport's. */
    List<String> differences(int column) {
      List<String> fields = new ArrayList<>();
      equal.forEach(
          (field, counts) -> {
            if (counts[column] != events) {
              fields.add(field + ": " + examples.get(field)[column]);
            }
          });
      return fields;
    }

    boolean differs(int column, String field) {
      return equal.get(field)[column] != events;
    }

    String print(String title) {
      StringBuilder out = new StringBuilder();
      out.append("CDC record vs KafkaTransport record, ")
          .append(events)
          .append(" events, ")
          .append(title)
          .append('\n');
      StringBuilder rule = new StringBuilder("|---|");
      out.append("| field |");
      for (String t : titles) {
        out.append(' ').append(t).append(" |");
        rule.append("---|");
      }
      out.append('\n').append(rule).append('\n');
      equal.forEach(
          (field, counts) -> {
            out.append("| ").append(field).append(" |");
            for (int i = 0; i < titles.size(); i++) {
              out.append(' ').append(cell(counts[i], examples.get(field)[i])).append(" |");
            }
            out.append('\n');
          });
      if (!extras.isEmpty()) {
        out.append("\n| behaviour | KafkaTransport (relay) |");
        StringBuilder extraRule = new StringBuilder("|---|---|");
        for (String t : titles) {
          out.append(' ').append(t).append(" |");
          extraRule.append("---|");
        }
        out.append('\n').append(extraRule).append('\n');
        extras.forEach(
            (field, cells) -> {
              out.append("| ").append(field).append(" |");
              for (String c : cells) {
                out.append(' ').append(c).append(" |");
              }
              out.append('\n');
            });
      }
      return out.toString();
    }

    private String cell(int equalCount, String example) {
      String cell =
          equalCount == events
              ? "equal (" + events + "/" + events + ")"
              : equalCount + "/" + events + " equal; e.g. " + example;
      return cell.replace("|", "\\|").replace("\n", " ");
    }
  }
}
