package dev.outboxkit.debezium.internal;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

/**
 * One row of the outbox table as a Debezium change event's {@code after} image shows it, read with
 * the column names of OutboxKit's DDL. Only what publishing needs; the relay's bookkeeping columns
 * (attempts, leases, errors) are ignored, except {@code status}.
 */
public final class EventRow {
  private final String id;
  private final String aggregateType;
  private final String aggregateId;
  private final String eventType;
  private final int schemaVersion;
  private final String destination;
  private final String tenant;
  private final byte[] payload;
  private final String contentType;
  private final Map<String, String> headers;
  private final Instant occurredAt;
  private final Instant availableAt;
  private final Instant expiresAt;
  private final long aggregateVersion;
  private final String status;

  private EventRow(Struct row, String table) {
    this.id = canonicalId(text(row, "id", true));
    this.aggregateType = text(row, "aggregate_type", true);
    this.aggregateId = text(row, "aggregate_id", true);
    this.eventType = text(row, "event_type", true);
    this.schemaVersion = ((Number) required(row, "schema_version")).intValue();
    this.destination = text(row, "destination", false);
    this.tenant = text(row, "tenant", false);
    this.payload = bytes(row, table);
    this.contentType = text(row, "content_type", true);
    try {
      this.headers = HeadersColumn.parse(text(row, "headers", false));
      this.occurredAt = time(row, "occurred_at");
      this.availableAt = time(row, "available_at");
      this.expiresAt = time(row, "expires_at");
    } catch (IllegalArgumentException e) {
      throw new DataException(
          "outbox event " + id + " of table " + table + ": " + e.getMessage(), e);
    }
    this.aggregateVersion = version(row, table);
    this.status = text(row, "status", true);
  }

  /**
   * Reads a row.
   *
   * @param row the {@code after} struct of a change event
   * @param table the table's name, for error messages
   * @throws DataException if a column is missing or holds what OutboxKit never writes there
   */
  public static EventRow of(Struct row, String table) {
    return new EventRow(row, table);
  }

  /** {@return the event id in canonical UUID text, as the relay reads it} */
  public String id() {
    return id;
  }

  /** {@return the aggregate type} */
  public String aggregateType() {
    return aggregateType;
  }

  /** {@return the aggregate id} */
  public String aggregateId() {
    return aggregateId;
  }

  /** {@return the event type} */
  public String eventType() {
    return eventType;
  }

  /** {@return the payload schema version} */
  public int schemaVersion() {
    return schemaVersion;
  }

  /** {@return the destination, or null} */
  public String destination() {
    return destination;
  }

  /** {@return the tenant, or null} */
  public String tenant() {
    return tenant;
  }

  /** {@return the payload bytes (not copied)} */
  public byte[] payload() {
    return payload;
  }

  /** {@return the payload's media type} */
  public String contentType() {
    return contentType;
  }

  /** {@return the user headers in column order} */
  public Map<String, String> headers() {
    return headers;
  }

  /** {@return when the event happened} */
  public Instant occurredAt() {
    return occurredAt;
  }

  /** {@return when the relay would have claimed it first, or null if the column is absent} */
  public Instant availableAt() {
    return availableAt;
  }

  /** {@return when it expires, or null} */
  public Instant expiresAt() {
    return expiresAt;
  }

  /** {@return the aggregate's version after this event, or 0 when the event has none} */
  public long aggregateVersion() {
    return aggregateVersion;
  }

  /**
   * {@return the relay's status column: PENDING, IN_FLIGHT, PUBLISHED, DEAD, EXPIRED, CANCELLED or
   * SUPERSEDED}
   */
  public String status() {
    return status;
  }

  private static Object required(Struct row, String column) {
    Object value = value(row, column);
    if (value == null) {
      throw new DataException(
          "column " + column + " of an outbox row is NULL; OutboxKit's table never has that");
    }
    return value;
  }

  private static Object value(Struct row, String column) {
    if (row.schema().field(column) == null) {
      throw new DataException(
          "the change event has no column "
              + column
              + ": is the connector capturing a table that is not an OutboxKit outbox table, or"
              + " leaving out columns (column.include.list / column.exclude.list)?");
    }
    return row.get(column);
  }

  private static String text(Struct row, String column, boolean notNull) {
    Object value = notNull ? required(row, column) : value(row, column);
    return value == null ? null : value.toString();
  }

  /**
   * The {@code aggregate_version} column; 0 when NULL, and when the column is absent: a table
   * created before OutboxKit had it publishes as before, without the header.
   */
  private long version(Struct row, String table) {
    if (row.schema().field("aggregate_version") == null) {
      return 0;
    }
    Object value = row.get("aggregate_version");
    if (value == null) {
      return 0;
    }
    long version = ((Number) value).longValue();
    if (version < 1) {
      throw new DataException(
          "outbox event "
              + id
              + " of table "
              + table
              + ": column aggregate_version is "
              + version
              + "; OutboxKit writes 1 or more, or NULL");
    }
    return version;
  }

  private static Instant time(Struct row, String column) {
    Field field = row.schema().field(column);
    if (field == null) {
      if (column.equals("occurred_at")) {
        value(row, column); // throws, naming the column
      }
      return null;
    }
    Schema schema = field.schema();
    return ColumnTime.of(row.get(field), schema);
  }

  private byte[] bytes(Struct row, String table) {
    Object value = required(row, "payload");
    if (value instanceof byte[]) {
      return (byte[]) value;
    }
    if (value instanceof ByteBuffer) {
      ByteBuffer buffer = ((ByteBuffer) value).slice();
      byte[] bytes = new byte[buffer.remaining()];
      buffer.get(bytes);
      return bytes;
    }
    throw new DataException(
        "outbox event "
            + id
            + " of table "
            + table
            + ": the payload column arrived as "
            + value.getClass().getSimpleName()
            + ", not bytes; set the connector's binary.handling.mode=bytes (its default)");
  }

  private static String canonicalId(String id) {
    try {
      return UUID.fromString(id).toString();
    } catch (IllegalArgumentException e) {
      throw new DataException("column id of an outbox row is not a UUID", e);
    }
  }
}
