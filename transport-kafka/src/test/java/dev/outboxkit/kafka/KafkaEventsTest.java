package dev.outboxkit.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class KafkaEventsTest {
  private static final UUID ID = UUID.fromString("4d47e190-0402-4048-bc2c-89dd54343cdc");

  @Test
  void eventId_reads_plain_uuid_text_when_written_by_this_transport() {
    assertThat(KafkaEvents.eventId(record("id", ID.toString()))).contains(ID);
  }

  @Test
  void eventId_reads_quoted_uuid_when_written_by_debezium_with_a_json_header_converter() {
    assertThat(KafkaEvents.eventId(record("id", "\"" + ID + "\""))).contains(ID);
  }

  @Test
  void eventId_is_empty_when_header_is_absent() {
    assertThat(KafkaEvents.eventId(record("other", "x"))).isEmpty();
  }

  @Test
  void eventId_uses_the_last_header_when_it_occurs_twice() {
    RecordHeaders headers = new RecordHeaders();
    headers.add("id", UUID.randomUUID().toString().getBytes(UTF_8));
    headers.add("id", ID.toString().getBytes(UTF_8));

    assertThat(KafkaEvents.eventId(record(headers))).contains(ID);
  }

  @Test
  void eventId_throws_naming_the_record_when_header_is_not_a_uuid() {
    assertThatThrownBy(() -> KafkaEvents.eventId(record("id", "42")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("orders-3@17")
        .hasMessageContaining("'42'");
  }

  @Test
  void readers_return_typed_values_when_headers_are_present() {
    RecordHeaders headers = new RecordHeaders();
    headers.add(KafkaEvents.HEADER_EVENT_TYPE, "OrderPlaced".getBytes(UTF_8));
    headers.add(KafkaEvents.HEADER_AGGREGATE_TYPE, "Order".getBytes(UTF_8));
    headers.add(KafkaEvents.HEADER_SCHEMA_VERSION, "3".getBytes(UTF_8));
    headers.add(KafkaEvents.HEADER_OCCURRED_AT, "2025-01-31T12:13:01.5Z".getBytes(UTF_8));
    headers.add("nullish", null);
    ConsumerRecord<String, byte[]> r = record(headers);

    assertThat(KafkaEvents.eventType(r)).contains("OrderPlaced");
    assertThat(KafkaEvents.aggregateType(r)).contains("Order");
    assertThat(KafkaEvents.schemaVersion(r)).hasValue(3);
    assertThat(KafkaEvents.occurredAt(r)).contains(Instant.parse("2025-01-31T12:13:01.5Z"));
    assertThat(KafkaEvents.header(r, "nullish")).isEqualTo(Optional.empty());
  }

  @Test
  void readers_are_empty_when_headers_are_absent() {
    ConsumerRecord<String, byte[]> r = record(new RecordHeaders());

    assertThat(KafkaEvents.eventType(r)).isEmpty();
    assertThat(KafkaEvents.schemaVersion(r)).isEmpty();
    assertThat(KafkaEvents.occurredAt(r)).isEmpty();
  }

  @Test
  void schemaVersion_throws_when_header_is_not_a_number() {
    assertThatThrownBy(() -> KafkaEvents.schemaVersion(record("outbox-schema-version", "v2")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not an integer");
  }

  @Test
  void aggregateVersion_reads_decimal_text_when_header_is_present() {
    assertThat(KafkaEvents.aggregateVersion(record("outbox-aggregate-version", "9000000000")))
        .hasValue(9_000_000_000L);
    assertThat(KafkaEvents.aggregateVersion(record("outbox-aggregate-version", " 1 "))).hasValue(1);
  }

  @Test
  void aggregateVersion_is_empty_when_header_is_absent() {
    assertThat(KafkaEvents.aggregateVersion(record(new RecordHeaders()))).isEmpty();
  }

  @Test
  void aggregateVersion_throws_naming_header_and_record_when_value_is_no_version() {
    for (String bad : List.of("v2", "", "0", "-3", "1.5", "99999999999999999999")) {
      assertThatThrownBy(
              () -> KafkaEvents.aggregateVersion(record("outbox-aggregate-version", bad)))
          .as("'%s'", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("header 'outbox-aggregate-version' of record orders-3@17")
          .hasMessageContaining("not an aggregate version")
          .hasMessageContaining("'" + bad + "'");
    }
  }

  private static ConsumerRecord<String, byte[]> record(String header, String value) {
    RecordHeaders headers = new RecordHeaders();
    headers.add(header, value.getBytes(UTF_8));
    return record(headers);
  }

  private static ConsumerRecord<String, byte[]> record(RecordHeaders headers) {
    return new ConsumerRecord<>(
        "orders",
        3,
        17,
        0L,
        TimestampType.CREATE_TIME,
        0,
        0,
        "order-1",
        new byte[0],
        headers,
        Optional.empty());
  }
}
