package dev.outboxkit.debezium.internal;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Date;
import org.apache.kafka.connect.data.Schema;

/**
 * Turns a time column of a Debezium change event back into the instant the database holds.
 *
 * <p>The connectors encode the table's time columns differently: PostgreSQL's {@code TIMESTAMPTZ}
 * arrives as ISO-8601 text ({@code io.debezium.time.ZonedTimestamp}, in UTC, its fraction padded to
 * the column's precision); MySQL's {@code DATETIME(6)} as microseconds since the epoch ({@code
 * io.debezium.time.MicroTimestamp}, the default {@code time.precision.mode}), or as milliseconds
 * ({@code io.debezium.time.Timestamp}, Connect's {@code Timestamp}) in other modes.
 */
public final class ColumnTime {
  private static final String ZONED_TIMESTAMP = "io.debezium.time.ZonedTimestamp";
  private static final String TIMESTAMP = "io.debezium.time.Timestamp";
  private static final String MICRO_TIMESTAMP = "io.debezium.time.MicroTimestamp";
  private static final String NANO_TIMESTAMP = "io.debezium.time.NanoTimestamp";

  private ColumnTime() {}

  /**
   * Reads a time column.
   *
   * @param value the column's value in the change event, or null
   * @param schema the column's schema in the change event
   * @return the instant, or null for NULL
   * @throws IllegalArgumentException if the value is of a kind no Debezium connector uses for the
   *     outbox table's time columns
   */
  public static Instant of(Object value, Schema schema) {
    if (value == null) {
      return null;
    }
    if (value instanceof String) {
      // ISO_OFFSET_DATE_TIME: any fraction from none to nine digits, "Z" or "+hh:mm".
      return OffsetDateTime.parse((String) value).toInstant();
    }
    if (value instanceof Date) {
      return ((Date) value).toInstant(); // Connect's logical Timestamp
    }
    if (value instanceof Long) {
      long n = (Long) value;
      String name = schema.name() == null ? "" : schema.name();
      switch (name) {
        case TIMESTAMP:
          return Instant.ofEpochMilli(n);
        case MICRO_TIMESTAMP:
          return Instant.ofEpochSecond(
              Math.floorDiv(n, 1_000_000L), Math.floorMod(n, 1_000_000L) * 1_000L);
        case NANO_TIMESTAMP:
          return Instant.ofEpochSecond(
              Math.floorDiv(n, 1_000_000_000L), Math.floorMod(n, 1_000_000_000L));
        default:
          break;
      }
    }
    throw new IllegalArgumentException(
        "unsupported time encoding "
            + (schema.name() == null ? schema.type() : schema.name())
            + " (expected "
            + ZONED_TIMESTAMP
            + ", "
            + MICRO_TIMESTAMP
            + ", "
            + NANO_TIMESTAMP
            + " or a timestamp in milliseconds)");
  }
}
