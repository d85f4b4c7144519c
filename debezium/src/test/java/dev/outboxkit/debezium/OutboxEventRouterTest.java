package dev.outboxkit.debezium;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.kafka.KafkaTransport;
import dev.outboxkit.testkit.logging.LogCapture;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.Transformation;
import org.junit.jupiter.api.Test;

/**
 * The transformation on hand-made change events shaped like Debezium's (the integration tests run
 * the real connectors): what publishes, what each field becomes, and what fails.
 */
class OutboxEventRouterTest {
  private static final Instant NOW = Instant.parse("2026-03-04T05:06:07.000008Z");
  private static final String ID = "0190a7c4-5c1e-7a35-8d2c-3f1e2d3c4b5a";

  private static final Schema ZONED =
      SchemaBuilder.string().name("io.debezium.time.ZonedTimestamp").optional().build();
  private static final Schema MICROS =
      SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").optional().build();

  private final OutboxEventRouter<SourceRecord> router =
      new OutboxEventRouter<>(Clock.fixed(NOW, ZoneOffset.UTC));

  @Test
  void header_names_and_topic_prefix_are_the_kafka_transports() {
    assertThat(OutboxEventRouter.DEFAULT_TOPIC_PREFIX)
        .isEqualTo(KafkaTransport.DEFAULT_TOPIC_PREFIX);
    assertThat(
            List.of(
                OutboxEventRouter.HEADER_EVENT_ID,
                OutboxEventRouter.HEADER_EVENT_TYPE,
                OutboxEventRouter.HEADER_AGGREGATE_TYPE,
                OutboxEventRouter.HEADER_SCHEMA_VERSION,
                OutboxEventRouter.HEADER_CONTENT_TYPE,
                OutboxEventRouter.HEADER_OCCURRED_AT,
                OutboxEventRouter.HEADER_TENANT,
                OutboxEventRouter.HEADER_AGGREGATE_VERSION))
        .isEqualTo(CdcRecordsContractTest.TRANSPORT_HEADERS);
    assertThat(OutboxEventRouter.RESERVED_HEADERS)
        .isEqualTo(Set.copyOf(CdcRecordsContractTest.TRANSPORT_HEADERS));
  }

  @Test
  @SuppressWarnings("rawtypes")
  void connect_finds_it_through_the_service_loader() {
    assertThat(ServiceLoader.load(Transformation.class).stream().map(ServiceLoader.Provider::type))
        .contains(OutboxEventRouter.class);
  }

  @Test
  void apply_turns_an_insert_into_the_transport_record() {
    SourceRecord out =
        router.apply(
            change(
                "c",
                row(
                    r -> {
                      r.put("tenant", "acme");
                      r.put("headers", "{\"traceparent\":\"00-ab-cd-01\", \"x\" : \"1\\n2\"}");
                    })));

    assertThat(out.topic()).isEqualTo("outbox.event.Order");
    assertThat(out.kafkaPartition()).isNull();
    assertThat(out.timestamp()).as("the producer stamps the send time").isNull();
    assertThat(out.keySchema()).isEqualTo(Schema.STRING_SCHEMA);
    assertThat(out.key()).isEqualTo("o-1");
    assertThat(out.valueSchema()).isEqualTo(Schema.BYTES_SCHEMA);
    assertThat((byte[]) out.value()).isEqualTo("{\"a\":1}".getBytes(UTF_8));
    assertThat(out.sourceOffset()).as("Connect still commits the offset").containsKey("lsn");
    assertThat(headers(out))
        .containsExactlyElementsOf(
            eventHeadersThen("outbox-tenant=acme", "traceparent=00-ab-cd-01", "x=1\n2"));
    for (Header h : out.headers()) {
      assertThat(h.schema()).isEqualTo(Schema.STRING_SCHEMA);
    }
  }

  @Test
  void apply_leaves_out_the_tenant_header_and_debeziums_headers() {
    SourceRecord in = change("c", row(r -> {}));
    in.headers().addString("__debezium.context.connectorName", "postgresql");

    assertThat(headers(router.apply(in))).containsExactlyElementsOf(eventHeadersThen());
  }

  @Test
  void apply_routes_to_the_destination_when_there_is_one() {
    SourceRecord out =
        router.apply(change("c", row(r -> r.put("destination", "billing.invoices"))));

    assertThat(out.topic()).isEqualTo("billing.invoices");
  }

  @Test
  void apply_publishes_only_the_snapshot_rows_the_relay_has_not_finished() {
    for (String status : List.of("PENDING", "IN_FLIGHT")) {
      assertThat(router.apply(change("r", row(r -> r.put("status", status)))))
          .as(status)
          .isNotNull();
    }
    for (String status : List.of("PUBLISHED", "DEAD", "EXPIRED", "CANCELLED", "SUPERSEDED")) {
      assertThat(router.apply(change("r", row(r -> r.put("status", status))))).as(status).isNull();
    }
  }

  @Test
  void apply_drops_an_insert_whose_row_is_already_withdrawn() {
    for (String status : List.of("CANCELLED", "SUPERSEDED")) {
      assertThat(router.apply(change("c", row(r -> r.put("status", status))))).as(status).isNull();
    }
  }

  @Test
  void apply_carries_the_aggregate_version_after_the_tenant_as_the_transport_does() {
    SourceRecord out =
        router.apply(
            change(
                "c",
                row(
                    r -> {
                      r.put("tenant", "acme");
                      r.put("aggregate_version", 9_000_000_000L);
                      r.put("headers", "{\"x\":\"1\"}");
                    })));

    assertThat(headers(out))
        .containsExactlyElementsOf(
            eventHeadersThen("outbox-tenant=acme", "outbox-aggregate-version=9000000000", "x=1"));
  }

  @Test
  void apply_publishes_without_a_version_header_when_the_table_has_no_aggregate_version_column() {
    SchemaBuilder older = SchemaBuilder.struct().name("okt.public.outbox_event.Value").optional();
    for (org.apache.kafka.connect.data.Field f : row(r -> {}).schema().fields()) {
      if (!f.name().equals("aggregate_version")) {
        older.field(f.name(), f.schema());
      }
    }

    SourceRecord out = router.apply(change("c", fill(new Struct(older.build()), r -> {})));

    assertThat(headers(out)).containsExactlyElementsOf(eventHeadersThen());
  }

  @Test
  void apply_refuses_an_aggregate_version_below_one_naming_the_event() {
    assertThatThrownBy(() -> router.apply(change("c", row(r -> r.put("aggregate_version", 0L)))))
        .isInstanceOf(DataException.class)
        .hasMessageContaining(ID)
        .hasMessageContaining("aggregate_version is 0");
  }

  @Test
  void apply_publishes_nothing_for_updates_deletes_truncates_and_tombstones() {
    for (String op : List.of("u", "d", "t")) {
      assertThat(router.apply(change(op, row(r -> {})))).as(op).isNull();
    }
    SourceRecord tombstone =
        new SourceRecord(Map.of(), Map.of(), "t", null, Schema.STRING_SCHEMA, "k", null, null);
    assertThat(router.apply(tombstone)).isNull();
  }

  @Test
  void apply_passes_records_that_are_not_change_events() {
    Schema heartbeat =
        SchemaBuilder.struct()
            .name("io.debezium.connector.common.Heartbeat")
            .field("ts_ms", Schema.INT64_SCHEMA)
            .build();
    SourceRecord in =
        new SourceRecord(
            Map.of(),
            Map.of(),
            "__debezium-heartbeat.x",
            null,
            null,
            null,
            heartbeat,
            new Struct(heartbeat).put("ts_ms", 1L));

    assertThat(router.apply(in)).isSameAs(in);
  }

  @Test
  void apply_drops_an_expired_event_as_the_relay_expires_it() {
    assertThat(router.apply(change("c", row(r -> r.put("expires_at", NOW.toString())))))
        .as("expires now")
        .isNull();
    assertThat(router.apply(change("r", row(r -> r.put("expires_at", "2026-01-01T00:00:00Z")))))
        .as("expired long ago")
        .isNull();
    assertThat(
            router.apply(
                change("c", row(r -> r.put("expires_at", NOW.plusNanos(1000).toString())))))
        .as("expires a microsecond from now")
        .isNotNull();
  }

  @Test
  void apply_publishes_a_delayed_event_at_once_and_warns_the_first_time() {
    try (LogCapture logs = LogCapture.start()) {
      String inAnHour = NOW.plusSeconds(3600).toString();
      assertThat(router.apply(change("c", row(r -> r.put("available_at", inAnHour))))).isNotNull();
      assertThat(router.apply(change("c", row(r -> r.put("available_at", inAnHour))))).isNotNull();
      assertThat(router.apply(change("c", row(r -> r.put("available_at", NOW.toString())))))
          .isNotNull();

      assertThat(logs.lines())
          .filteredOn(l -> l.level().equals("WARN"))
          .singleElement()
          .satisfies(l -> assertThat(l.text()).contains(ID, "cannot honour a delay"));
    }
  }

  @Test
  void apply_writes_occurred_at_as_the_transport_does_whatever_the_column_encoding() {
    assertThat(occurredAt(ZONED, "2026-01-02T03:04:06.000000Z")).isEqualTo("2026-01-02T03:04:06Z");
    assertThat(occurredAt(ZONED, "2026-01-02T03:04:06.120000Z"))
        .isEqualTo("2026-01-02T03:04:06.120Z");
    assertThat(occurredAt(ZONED, "2026-01-02T08:49:06.5+05:45"))
        .isEqualTo("2026-01-02T03:04:06.500Z");
    long micros = Instant.parse("2026-01-02T03:04:06.000007Z").toEpochMilli() * 1000 + 7;
    assertThat(occurredAt(MICROS, micros)).isEqualTo("2026-01-02T03:04:06.000007Z");
    assertThat(
            occurredAt(
                SchemaBuilder.int64().name("io.debezium.time.Timestamp").optional().build(),
                Instant.parse("2026-01-02T03:04:06.001Z").toEpochMilli()))
        .isEqualTo("2026-01-02T03:04:06.001Z");
    assertThat(
            occurredAt(
                SchemaBuilder.int64().name("io.debezium.time.NanoTimestamp").optional().build(),
                Instant.parse("2026-01-02T03:04:06Z").toEpochMilli() * 1_000_000 + 123_456_789))
        .isEqualTo("2026-01-02T03:04:06.123456789Z");
    assertThat(occurredAt(MICROS, -1L)).isEqualTo("1969-12-31T23:59:59.999999Z");
  }

  @Test
  void apply_accepts_the_payload_as_a_byte_buffer() {
    SourceRecord out =
        router.apply(
            change("c", row(r -> r.put("payload", ByteBuffer.wrap(new byte[] {0, 1, -1})))));

    assertThat((byte[]) out.value()).containsExactly(0, 1, -1);
  }

  @Test
  void apply_refuses_a_base64_payload_and_names_the_setting() {
    Schema base64 = afterSchema(Schema.STRING_SCHEMA, ZONED);
    Struct row = fill(new Struct(base64), r -> {});

    assertThatThrownBy(() -> router.apply(change("c", row)))
        .isInstanceOf(DataException.class)
        .hasMessageContaining(ID)
        .hasMessageContaining("binary.handling.mode=bytes");
  }

  @Test
  void apply_refuses_a_user_header_with_a_reserved_name_naming_the_event() {
    assertThatThrownBy(
            () -> router.apply(change("c", row(r -> r.put("headers", "{\"id\":\"mine\"}")))))
        .isInstanceOf(DataException.class)
        .hasMessageContaining(ID)
        .hasMessageContaining("'id' is reserved");
  }

  @Test
  void apply_refuses_a_destination_that_is_no_topic_name() {
    assertThatThrownBy(() -> router.apply(change("c", row(r -> r.put("destination", "orders/eu")))))
        .isInstanceOf(DataException.class)
        .hasMessageContaining(ID)
        .hasMessageContaining("legal destination");
  }

  @Test
  void apply_names_a_missing_column() {
    Schema partial = SchemaBuilder.struct().field("id", Schema.STRING_SCHEMA).build();

    assertThatThrownBy(() -> router.apply(change("c", new Struct(partial).put("id", ID))))
        .isInstanceOf(DataException.class)
        .hasMessageContaining("no column aggregate_type");
  }

  @Test
  void apply_refuses_a_headers_column_that_is_not_json_of_strings() {
    assertThatThrownBy(() -> router.apply(change("c", row(r -> r.put("headers", "{\"n\":1}")))))
        .isInstanceOf(DataException.class)
        .hasMessageContaining(ID)
        .hasMessageContaining("headers column");
  }

  @Test
  void version_and_config_need_nothing() {
    router.configure(Map.of("type", OutboxEventRouter.class.getName()));
    assertThat(router.config().names()).isEmpty();
    assertThat(router.version()).isNotBlank();
    router.close();
  }

  private String occurredAt(Schema schema, Object value) {
    Struct row = fill(new Struct(afterSchema(Schema.BYTES_SCHEMA, schema)), r -> {});
    row.put("occurred_at", value);
    return headerValue(router.apply(change("c", row)), "outbox-occurred-at");
  }

  /** The headers every record of {@link #row} carries, in their order, then {@code more}. */
  private static List<String> eventHeadersThen(String... more) {
    List<String> headers =
        new ArrayList<>(
            List.of(
                "id=" + ID,
                "outbox-event-type=OrderPlaced",
                "outbox-aggregate-type=Order",
                "outbox-schema-version=2",
                "content-type=application/json",
                "outbox-occurred-at=2026-01-02T03:04:05.123450Z"));
    headers.addAll(List.of(more));
    return headers;
  }

  private static List<String> headers(SourceRecord record) {
    List<String> headers = new ArrayList<>();
    for (Header h : record.headers()) {
      headers.add(h.key() + "=" + h.value());
    }
    return headers;
  }

  private static String headerValue(SourceRecord record, String name) {
    return String.valueOf(record.headers().lastWithName(name).value());
  }

  /** A PostgreSQL-shaped {@code after} image, adjusted by the caller. */
  static Struct row(Consumer<Struct> adjust) {
    return fill(new Struct(afterSchema(Schema.BYTES_SCHEMA, ZONED)), adjust);
  }

  private static Struct fill(Struct row, Consumer<Struct> adjust) {
    row.put("seq", 7L);
    row.put("id", ID);
    row.put("aggregate_type", "Order");
    row.put("aggregate_id", "o-1");
    row.put("event_type", "OrderPlaced");
    row.put("schema_version", 2);
    boolean bytes = row.schema().field("payload").schema().type() == Schema.Type.BYTES;
    row.put("payload", bytes ? "{\"a\":1}".getBytes(UTF_8) : "eyJhIjoxfQ==");
    row.put("content_type", "application/json");
    Schema time = row.schema().field("occurred_at").schema();
    row.put("occurred_at", time.type() == Schema.Type.STRING ? "2026-01-02T03:04:05.123450Z" : 0L);
    row.put("available_at", time.type() == Schema.Type.STRING ? "2026-01-02T03:04:05Z" : 0L);
    row.put("status", "PENDING");
    adjust.accept(row);
    return row;
  }

  private static Schema afterSchema(Schema payload, Schema time) {
    return SchemaBuilder.struct()
        .name("okt.public.outbox_event.Value")
        .optional()
        .field("seq", Schema.INT64_SCHEMA)
        .field("id", SchemaBuilder.string().name("io.debezium.data.Uuid").build())
        .field("aggregate_type", Schema.STRING_SCHEMA)
        .field("aggregate_id", Schema.STRING_SCHEMA)
        .field("event_type", Schema.STRING_SCHEMA)
        .field("schema_version", Schema.INT32_SCHEMA)
        .field("destination", Schema.OPTIONAL_STRING_SCHEMA)
        .field("tenant", Schema.OPTIONAL_STRING_SCHEMA)
        .field("payload", payload)
        .field("content_type", Schema.STRING_SCHEMA)
        .field("headers", Schema.OPTIONAL_STRING_SCHEMA)
        .field("occurred_at", time)
        .field("available_at", time)
        .field("expires_at", time)
        .field("status", Schema.STRING_SCHEMA)
        .field("aggregate_version", Schema.OPTIONAL_INT64_SCHEMA)
        .build();
  }

  static SourceRecord change(String op, Struct after) {
    Schema source =
        SchemaBuilder.struct()
            .name("io.debezium.connector.postgresql.Source")
            .field("connector", Schema.STRING_SCHEMA)
            .field("table", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.INT64_SCHEMA)
            .build();
    Schema envelope =
        SchemaBuilder.struct()
            .name("okt.public.outbox_event.Envelope")
            .field("before", after.schema())
            .field("after", after.schema())
            .field("source", source)
            .field("op", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
            .build();
    Struct value =
        new Struct(envelope)
            .put("after", after)
            .put(
                "source",
                new Struct(source)
                    .put("connector", "postgresql")
                    .put("table", "outbox_event")
                    .put("ts_ms", 1L))
            .put("op", op);
    return new SourceRecord(
        Map.of("server", "okt"),
        Map.of("lsn", 42L),
        "okt.public.outbox_event",
        null,
        null,
        null,
        envelope,
        value,
        null,
        new ConnectHeaders());
  }
}
