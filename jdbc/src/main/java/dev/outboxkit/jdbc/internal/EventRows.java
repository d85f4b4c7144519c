package dev.outboxkit.jdbc.internal;

import dev.outboxkit.OutboxEvent;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The one place in Java that names an event's columns: what an append writes ({@link #bind}) and
 * what a claim reads back ({@link #read}). The statement files refer to these lists through
 * placeholders that {@link CompiledDialect} fills in once per dialect, so a new column is its DDL
 * per dialect plus this class:
 *
 * <ul>
 *   <li>{@code {written_columns}} and {@code {written_values}}: the {@link #WRITTEN} columns and
 *       their parameters, each named as its column;
 *   <li>{@code {event_columns}} (or {@code {event_columns:a}}, each qualified by alias {@code a}):
 *       the {@link #READ} columns.
 * </ul>
 */
final class EventRows {
  /**
   * The columns an append binds, in order; {@code available_at} is the dialect's own expression.
   */
  static final List<String> WRITTEN =
      Collections.unmodifiableList(
          Arrays.asList(
              "id",
              "aggregate_type",
              "aggregate_id",
              "event_type",
              "schema_version",
              "destination",
              "tenant",
              "payload",
              "content_type",
              "headers",
              "occurred_at",
              "expires_at",
              "aggregate_version",
              "supersede_key",
              "priority"));

  /**
   * The columns a claim reads: the row's seq, what the event is rebuilt from, its attempts and
   * uncertain sends.
   */
  static final List<String> READ = read();

  private EventRows() {}

  private static List<String> read() {
    String[] columns = new String[WRITTEN.size() + 3];
    columns[0] = "seq";
    for (int i = 0; i < WRITTEN.size(); i++) {
      columns[i + 1] = WRITTEN.get(i);
    }
    columns[columns.length - 2] = "attempts";
    columns[columns.length - 1] = "uncertain_sends";
    return Collections.unmodifiableList(Arrays.asList(columns));
  }

  /**
   * The {@link #READ} columns as a select list.
   *
   * @param alias the table alias to qualify each column with, or null for none
   */
  public static String readColumns(String alias) {
    StringBuilder list = new StringBuilder(256);
    for (String column : READ) {
      if (list.length() > 0) {
        list.append(", ");
      }
      if (alias != null) {
        list.append(alias).append('.');
      }
      list.append(column);
    }
    return list.toString();
  }

  /**
   * Binds the {@link #WRITTEN} columns of an event, each to the parameter of its name.
   *
   * @param headers the headers column, encoded (the event's headers with any context merged in)
   */
  static Query bind(Query q, OutboxEvent e, String headers) throws SQLException {
    return q.setUuid("id", e.id())
        .setString("aggregate_type", e.aggregateType())
        .setString("aggregate_id", e.aggregateId())
        .setString("event_type", e.eventType())
        .setInt("schema_version", e.schemaVersion())
        .setString("destination", e.destination().orElse(null))
        .setString("tenant", e.tenant().orElse(null))
        .setBytes("payload", e.payload())
        .setString("content_type", e.contentType())
        .setString("headers", headers)
        .setInstant("occurred_at", e.occurredAt())
        .setInstant("expires_at", e.expiresAt().orElse(null))
        .setLong("aggregate_version", e.aggregateVersion())
        .setString("supersede_key", e.supersedeKey().orElse(null))
        .setInt("priority", e.priority());
  }

  /**
   * Reads the event at the result set's current row, from the {@link #READ} columns.
   *
   * @throws SQLException if a column cannot be read
   * @throws RuntimeException if the stored values do not form a valid event (a row written by hand
   *     or by another tool); the caller quarantines such rows
   */
  public static OutboxEvent read(ResultSet rs, CompiledDialect sql) throws SQLException {
    OutboxEvent.Builder b =
        OutboxEvent.builder(
                rs.getString("aggregate_type"),
                rs.getString("aggregate_id"),
                rs.getString("event_type"))
            .id(sql.getUuid(rs, "id"))
            .schemaVersion(rs.getInt("schema_version"))
            .payload(rs.getBytes("payload"), rs.getString("content_type"))
            .headers(HeadersCodec.decode(rs.getString("headers")))
            .occurredAt(sql.getInstant(rs, "occurred_at"));
    String destination = rs.getString("destination");
    if (destination != null) {
      b.destination(destination);
    }
    String tenant = rs.getString("tenant");
    if (tenant != null) {
      b.tenant(tenant);
    }
    Instant expiresAt = sql.getInstant(rs, "expires_at");
    if (expiresAt != null) {
      b.expiresAt(expiresAt);
    }
    long version = rs.getLong("aggregate_version");
    if (!rs.wasNull()) {
      b.aggregateVersion(version);
    }
    String supersedeKey = rs.getString("supersede_key");
    if (supersedeKey != null) {
      b.supersedeKey(supersedeKey);
    }
    return b.priority(rs.getInt("priority")).build();
  }
}
