package dev.outboxkit.debezium;

import dev.outboxkit.debezium.internal.EventRow;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.connect.components.Versioned;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Headers;
import org.apache.kafka.connect.transforms.Transformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka Connect transformation that turns Debezium's change events of an OutboxKit outbox table
 * into the very records {@code KafkaTransport} publishes for the same events, so consumers cannot
 * tell whether the relay or change data capture published an event. It replaces Debezium's {@code
 * io.debezium.transforms.outbox.EventRouter}; do not chain the two.
 *
 * <pre>{@code
 * transforms=outbox
 * transforms.outbox.type=dev.outboxkit.debezium.OutboxEventRouter
 * key.converter=org.apache.kafka.connect.storage.StringConverter
 * value.converter=org.apache.kafka.connect.converters.ByteArrayConverter
 * }</pre>
 *
 * <h2>Records</h2>
 *
 * <ul>
 *   <li>topic: the event's {@code destination}, else {@value #DEFAULT_TOPIC_PREFIX} + aggregate
 *       type (KafkaTransport's rule without a topic router);
 *   <li>key: the aggregate id as a string ({@code StringConverter} writes the transport's UTF-8
 *       bytes, so the producer's partitioner picks the same partition);
 *   <li>value: the payload bytes ({@code ByteArrayConverter} writes them unchanged);
 *   <li>headers, as Connect string headers (the worker's default {@code SimpleHeaderConverter}
 *       writes their UTF-8 text): {@code id}, {@code outbox-event-type}, {@code
 *       outbox-aggregate-type}, {@code outbox-schema-version}, {@code content-type}, {@code
 *       outbox-occurred-at} (ISO-8601 as {@link Instant#toString()} writes it), {@code
 *       outbox-tenant} when the event has a tenant, {@code outbox-aggregate-version} (decimal) when
 *       it has an aggregate version, then the event's own headers, one per name, in their order; no
 *       header is ever null, and Debezium's own headers are dropped;
 *   <li>timestamp: none, so the producer stamps the send time, as with the transport;
 *   <li>partition: none, so the producer's partitioner chooses from the key.
 * </ul>
 *
 * <h2>Which change events publish</h2>
 *
 * <ul>
 *   <li>inserts ({@code op=c}) publish, unless the event has expired ({@code expires_at} at or
 *       before the worker's clock), which the relay would have marked EXPIRED instead of sending,
 *       or the inserted row is already withdrawn (status {@code CANCELLED} or {@code SUPERSEDED},
 *       which OutboxKit's writer never inserts, but a copied or restored row may have);
 *   <li>snapshot reads ({@code op=r}) publish only rows the relay has not finished: status {@code
 *       PENDING} or {@code IN_FLIGHT}. Rows it published, quarantined (DEAD) or expired, and rows
 *       withdrawn (CANCELLED, SUPERSEDED) are dropped, so a snapshot at cut-over sends exactly the
 *       rest of the backlog;
 *   <li>updates, deletes and truncates publish nothing (the relay's status updates, purges).
 *       Withdrawing an event ({@code Outbox.cancel}, or a later event with the same supersede key)
 *       is such an update: by then the insert has been captured and published, so cancelling and
 *       superseding stop a relay but not change data capture, even in the inserting transaction
 *       (the insert's change event shows the row as inserted, PENDING);
 *   <li>tombstones are dropped; records that are not change events (heartbeats, schema changes)
 *       pass unchanged.
 * </ul>
 *
 * <p>An event the transport would refuse (a user header named like one of the transport's own, a
 * destination that is no legal topic name) fails with a {@link DataException} naming the event id
 * and what to fix; the connector's {@code errors.tolerance} decides whether the task stops ({@code
 * none}, the default) or skips and logs it ({@code all}).
 *
 * <p>The transformation has no options: column names are those of OutboxKit's DDL. It keeps no
 * state between records besides two flags for one-time warnings, and is thread-safe.
 */
public final class OutboxEventRouter<R extends ConnectRecord<R>>
    implements Transformation<R>, Versioned {
  private static final Logger log = LoggerFactory.getLogger(OutboxEventRouter.class);

  /** Prefix of the default topic, followed by the aggregate type: {@value}. As KafkaTransport's. */
  public static final String DEFAULT_TOPIC_PREFIX = "outbox.event.";

  // The names KafkaTransport writes (dev.outboxkit.kafka.KafkaEvents); a test holds them equal.
  static final String HEADER_EVENT_ID = "id";
  static final String HEADER_EVENT_TYPE = "outbox-event-type";
  static final String HEADER_AGGREGATE_TYPE = "outbox-aggregate-type";
  static final String HEADER_SCHEMA_VERSION = "outbox-schema-version";
  static final String HEADER_CONTENT_TYPE = "content-type";
  static final String HEADER_OCCURRED_AT = "outbox-occurred-at";
  static final String HEADER_TENANT = "outbox-tenant";
  static final String HEADER_AGGREGATE_VERSION = "outbox-aggregate-version";

  static final Set<String> RESERVED_HEADERS =
      Set.of(
          HEADER_EVENT_ID,
          HEADER_EVENT_TYPE,
          HEADER_AGGREGATE_TYPE,
          HEADER_SCHEMA_VERSION,
          HEADER_CONTENT_TYPE,
          HEADER_OCCURRED_AT,
          HEADER_TENANT,
          HEADER_AGGREGATE_VERSION);

  /**
   * How far a row's {@code available_at} may lie ahead of the worker's clock before publishing it
   * counts as ignoring a delay: 1 second, for clock skew between the database and the worker.
   */
  static final Duration DELAY_TOLERANCE = Duration.ofSeconds(1);

  private final Clock clock;
  private final AtomicBoolean warnedDelay = new AtomicBoolean();
  private final AtomicBoolean toldExpired = new AtomicBoolean();

  /** Created by the Connect worker, from the connector configuration's {@code transforms}. */
  public OutboxEventRouter() {
    this(Clock.systemUTC());
  }

  OutboxEventRouter(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Nothing to configure: the transformation reads OutboxKit's column names. Connect's own keys
   * ({@code type}, {@code predicate}, {@code negate}, {@code version}) are ignored.
   */
  @Override
  public void configure(Map<String, ?> configs) {
    log.info(
        "OutboxKit event router: inserts and unfinished snapshot rows of the outbox table become"
            + " KafkaTransport records (topic: destination, else '{}' + aggregate type)",
        DEFAULT_TOPIC_PREFIX);
  }

  /**
   * Turns one record.
   *
   * @param record a record from the Debezium connector
   * @return the event's record, or null to publish nothing (updates, deletes, tombstones, finished
   *     snapshot rows, expired or withdrawn events), or the record unchanged if it is no change
   *     event
   * @throws DataException if the event cannot be published as the transport would publish it
   */
  @Override
  public R apply(R record) {
    if (record.value() == null) {
      return null; // a tombstone after a delete
    }
    Schema schema = record.valueSchema();
    if (schema == null
        || schema.name() == null
        || !schema.name().endsWith(".Envelope")
        || !(record.value() instanceof Struct)) {
      return record; // a heartbeat, a schema change: not ours to judge
    }
    Struct envelope = (Struct) record.value();
    String op = envelope.getString("op");
    boolean snapshot = "r".equals(op);
    if (!snapshot && !"c".equals(op)) {
      return null; // u: the relay's status updates; d: purges; t: truncate
    }
    EventRow row = EventRow.of(envelope.getStruct("after"), table(envelope));
    if (snapshot && !("PENDING".equals(row.status()) || "IN_FLIGHT".equals(row.status()))) {
      return null; // finished: published, quarantined, expired, cancelled or superseded
    }
    if ("CANCELLED".equals(row.status()) || "SUPERSEDED".equals(row.status())) {
      return null; // inserted already withdrawn: never to be published
    }
    Instant now = clock.instant();
    if (row.expiresAt() != null && !row.expiresAt().isAfter(now)) {
      if (toldExpired.compareAndSet(false, true)) {
        log.info(
            "outbox event {} expired at {} and is dropped, as the relay would mark it EXPIRED;"
                + " further expired events are logged at TRACE",
            row.id(),
            row.expiresAt());
      } else {
        log.trace("outbox event {} expired at {} and is dropped", row.id(), row.expiresAt());
      }
      return null;
    }
    if (row.availableAt() != null && row.availableAt().isAfter(now.plus(DELAY_TOLERANCE))) {
      if (warnedDelay.compareAndSet(false, true)) {
        log.warn(
            "outbox event {} is published now although it was not due before {}: change data"
                + " capture publishes at commit and cannot honour a delay (or a relay's retry"
                + " back-off); further such events are logged at TRACE",
            row.id(),
            row.availableAt());
      } else {
        log.trace("outbox event {} published before its time {}", row.id(), row.availableAt());
      }
    }
    String topic = topic(row);
    return record.newRecord(
        topic,
        null,
        Schema.STRING_SCHEMA,
        row.aggregateId(),
        Schema.BYTES_SCHEMA,
        row.payload(),
        null,
        headers(row));
  }

  private static String topic(EventRow row) {
    String topic =
        row.destination() != null ? row.destination() : DEFAULT_TOPIC_PREFIX + row.aggregateType();
    try {
      Topic.validate(topic);
    } catch (InvalidTopicException e) {
      throw new DataException(
          "outbox event "
              + row.id()
              + " cannot be published: "
              + e.getMessage()
              + " (KafkaTransport rejects it too; route it with a legal destination)");
    }
    return topic;
  }

  private static Headers headers(EventRow row) {
    ConnectHeaders headers = new ConnectHeaders();
    headers.addString(HEADER_EVENT_ID, row.id());
    headers.addString(HEADER_EVENT_TYPE, row.eventType());
    headers.addString(HEADER_AGGREGATE_TYPE, row.aggregateType());
    headers.addString(HEADER_SCHEMA_VERSION, Integer.toString(row.schemaVersion()));
    headers.addString(HEADER_CONTENT_TYPE, row.contentType());
    headers.addString(HEADER_OCCURRED_AT, row.occurredAt().toString());
    if (row.tenant() != null) {
      headers.addString(HEADER_TENANT, row.tenant());
    }
    if (row.aggregateVersion() > 0) {
      headers.addString(HEADER_AGGREGATE_VERSION, Long.toString(row.aggregateVersion()));
    }
    for (Map.Entry<String, String> h : row.headers().entrySet()) {
      if (RESERVED_HEADERS.contains(h.getKey())) {
        throw new DataException(
            "outbox event "
                + row.id()
                + " cannot be published: its header '"
                + h.getKey()
                + "' is reserved ("
                + String.join(", ", new TreeSet<>(RESERVED_HEADERS))
                + " are written by OutboxKit; KafkaTransport rejects it too)");
      }
      headers.addString(h.getKey(), h.getValue());
    }
    return headers;
  }

  private static String table(Struct envelope) {
    Struct source = envelope.schema().field("source") == null ? null : envelope.getStruct("source");
    if (source == null || source.schema().field("table") == null) {
      return "(unknown)";
    }
    Object table = source.get("table");
    return table == null ? "(unknown)" : table.toString();
  }

  /** No options. */
  @Override
  public ConfigDef config() {
    return new ConfigDef();
  }

  /** Nothing to release. */
  @Override
  public void close() {}

  /** The OutboxKit version from the jar's manifest, or {@code "unknown"}. */
  @Override
  public String version() {
    String version = OutboxEventRouter.class.getPackage().getImplementationVersion();
    return version == null ? "unknown" : version;
  }
}
