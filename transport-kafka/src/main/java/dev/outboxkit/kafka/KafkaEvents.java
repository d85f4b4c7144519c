package dev.outboxkit.kafka;

import dev.outboxkit.internal.WireText;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * The wire format of events published by {@link KafkaTransport}: header names, and readers for the
 * consumer side.
 *
 * <p>A record carries the event's aggregate id as its key (UTF-8 string), the payload bytes as its
 * value, and these headers, every value UTF-8 text:
 *
 * <table>
 *   <caption>Headers set by the transport</caption>
 *   <tr><th>header</th><th>value</th></tr>
 *   <tr><td>{@value #HEADER_EVENT_ID}</td><td>event id, canonical UUID text; the same in every
 *       delivery attempt, so consumers can deduplicate on it</td></tr>
 *   <tr><td>{@value #HEADER_EVENT_TYPE}</td><td>event type, e.g. {@code OrderPlaced}</td></tr>
 *   <tr><td>{@value #HEADER_AGGREGATE_TYPE}</td><td>aggregate type, e.g. {@code Order}</td></tr>
 *   <tr><td>{@value #HEADER_SCHEMA_VERSION}</td><td>payload schema version, decimal</td></tr>
 *   <tr><td>{@value #HEADER_CONTENT_TYPE}</td><td>payload media type, e.g.
 *       {@code application/json}</td></tr>
 *   <tr><td>{@value #HEADER_OCCURRED_AT}</td><td>when the event happened, ISO-8601 instant
 *       ({@code 2025-01-31T12:13:01.123456Z})</td></tr>
 *   <tr><td>{@value #HEADER_TENANT}</td><td>tenant, only when the event has one</td></tr>
 *   <tr><td>{@value #HEADER_AGGREGATE_VERSION}</td><td>the aggregate's version after this event,
 *       decimal, 1 or more; only when the event has one</td></tr>
 * </table>
 *
 * <p>The event's own headers follow, names as given, values as UTF-8. A user header whose name is
 * one of the names above would be ambiguous for consumers, so the transport rejects such an event
 * (see {@link KafkaTransport}).
 *
 * <p>The event id travels in a header named {@value #HEADER_EVENT_ID} because that is where
 * Debezium's Outbox Event Router puts it by default; a consumer written against this class keeps
 * working when the publishing side switches to Debezium.
 */
public final class KafkaEvents {

  /** Header carrying the event id: {@value}. The name Debezium's Outbox Event Router uses. */
  public static final String HEADER_EVENT_ID = "id";

  /** Header carrying the event type: {@value}. */
  public static final String HEADER_EVENT_TYPE = "outbox-event-type";

  /** Header carrying the aggregate type: {@value}. */
  public static final String HEADER_AGGREGATE_TYPE = "outbox-aggregate-type";

  /** Header carrying the payload schema version: {@value}. */
  public static final String HEADER_SCHEMA_VERSION = "outbox-schema-version";

  /** Header carrying the payload's media type: {@value}. */
  public static final String HEADER_CONTENT_TYPE = "content-type";

  /** Header carrying when the event happened, as an ISO-8601 instant: {@value}. */
  public static final String HEADER_OCCURRED_AT = "outbox-occurred-at";

  /** Header carrying the tenant, present only for events that have one: {@value}. */
  public static final String HEADER_TENANT = "outbox-tenant";

  /**
   * Header carrying the aggregate's version after this event, present only for events that have one
   * ({@link dev.outboxkit.OutboxEvent#aggregateVersion()}): {@value}. A consumer hands it to its
   * inbox's ordering guard.
   */
  public static final String HEADER_AGGREGATE_VERSION = "outbox-aggregate-version";

  private KafkaEvents() {}

  /**
   * Reads the event id.
   *
   * <p>Accepts the canonical UUID text this transport writes, and the same text in double quotes,
   * which is what Debezium writes when its Connect worker uses a JSON header converter.
   *
   * @param record a consumed record
   * @return the event id, or empty if the record has no {@value #HEADER_EVENT_ID} header
   * @throws IllegalArgumentException if the header is present but is not a UUID; the message names
   *     the record's topic, partition and offset
   */
  public static Optional<UUID> eventId(ConsumerRecord<?, ?> record) {
    return WireText.uuid(
        header(record, HEADER_EVENT_ID).map(KafkaEvents::unquoted),
        origin(record, HEADER_EVENT_ID));
  }

  /**
   * Reads the event type.
   *
   * @param record a consumed record
   * @return the event type, or empty if the record has no {@value #HEADER_EVENT_TYPE} header (e.g.
   *     it was published by Debezium without an additional header placement for the type)
   */
  public static Optional<String> eventType(ConsumerRecord<?, ?> record) {
    return header(record, HEADER_EVENT_TYPE);
  }

  /**
   * Reads the aggregate type.
   *
   * @param record a consumed record
   * @return the aggregate type, or empty if the header is absent
   */
  public static Optional<String> aggregateType(ConsumerRecord<?, ?> record) {
    return header(record, HEADER_AGGREGATE_TYPE);
  }

  /**
   * Reads the payload schema version.
   *
   * @param record a consumed record
   * @return the schema version, or empty if the header is absent
   * @throws IllegalArgumentException if the header is present but not a decimal integer
   */
  public static OptionalInt schemaVersion(ConsumerRecord<?, ?> record) {
    return WireText.integer(
        header(record, HEADER_SCHEMA_VERSION).map(String::strip),
        origin(record, HEADER_SCHEMA_VERSION));
  }

  /**
   * Reads the aggregate's version after this event, as {@link
   * dev.outboxkit.OutboxEvent#aggregateVersion()} had it when appended.
   *
   * @param record a consumed record
   * @return the version, or empty if the record has no {@value #HEADER_AGGREGATE_VERSION} header
   *     (the event was appended without one)
   * @throws IllegalArgumentException if the header is present but not a decimal integer of 1 or
   *     more; the message names the header and the record's topic, partition and offset
   */
  public static OptionalLong aggregateVersion(ConsumerRecord<?, ?> record) {
    return WireText.version(
        header(record, HEADER_AGGREGATE_VERSION).map(String::strip),
        origin(record, HEADER_AGGREGATE_VERSION));
  }

  /**
   * Reads when the event happened.
   *
   * @param record a consumed record
   * @return the instant, or empty if the header is absent
   * @throws IllegalArgumentException if the header is present but not an ISO-8601 instant
   */
  public static Optional<Instant> occurredAt(ConsumerRecord<?, ?> record) {
    return WireText.instant(
        header(record, HEADER_OCCURRED_AT).map(String::strip), origin(record, HEADER_OCCURRED_AT));
  }

  /**
   * Reads any header as UTF-8 text. When a header occurs more than once, the last one wins, as in
   * {@link org.apache.kafka.common.header.Headers#lastHeader(String)}.
   *
   * @param record a consumed record
   * @param name the header name, compared exactly (Kafka header names are case-sensitive)
   * @return the value, or empty if the header is absent or has a null value
   */
  public static Optional<String> header(ConsumerRecord<?, ?> record, String name) {
    Objects.requireNonNull(record, "record");
    Objects.requireNonNull(name, "name");
    Header header = record.headers().lastHeader(name);
    if (header == null || header.value() == null) {
      return Optional.empty();
    }
    return Optional.of(new String(header.value(), StandardCharsets.UTF_8));
  }

  // Debezium writes the id in double quotes when its Connect worker uses a JSON header converter.
  private static String unquoted(String text) {
    String value = text.strip();
    if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
      return value.substring(1, value.length() - 1);
    }
    return value;
  }

  // The wording of WireText's errors, which has no reader for a long.

  private static WireText.Origin<RuntimeException> origin(
      ConsumerRecord<?, ?> record, String header) {
    return () ->
        "header '"
            + header
            + "' of record "
            + record.topic()
            + "-"
            + record.partition()
            + "@"
            + record.offset();
  }
}
