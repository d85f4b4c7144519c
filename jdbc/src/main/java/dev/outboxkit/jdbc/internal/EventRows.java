package dev.outboxkit.jdbc.internal;

import dev.outboxkit.OutboxEvent;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/** Rebuilds stored events from the columns the claim statements return. */
public final class EventRows {
  private EventRows() {}

  /**
   * Reads the event at the result set's current row.
   *
   * @throws SQLException if a column cannot be read
   * @throws RuntimeException if the stored values do not form a valid event (a row written by hand
   *     or by another tool); the caller quarantines such rows
   */
  public static OutboxEvent read(ResultSet rs, SqlDialect sql) throws SQLException {
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
    return b.build();
  }
}
