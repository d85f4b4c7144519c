package dev.outboxkit.jdbc.internal;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The columns an operator's view reads of a stored row, named once here, and the row they form.
 * Nothing is validated: a row written by hand or by another tool is shown as it is stored.
 */
public final class StoredRows {
  /** Every column but the headers and the payload, which only some views read. */
  static final List<String> SUMMARY =
      Collections.unmodifiableList(
          Arrays.asList(
              "seq",
              "id",
              "aggregate_type",
              "aggregate_id",
              "event_type",
              "schema_version",
              "destination",
              "tenant",
              "content_type",
              "occurred_at",
              "available_at",
              "expires_at",
              "status",
              "attempts",
              "uncertain_sends",
              "lease_losses",
              "last_error",
              "published_at",
              "lease_owner",
              "lease_until",
              "aggregate_version",
              "supersede_key",
              "priority"));

  private StoredRows() {}

  /** One stored row as read; {@code headers} and {@code payload} null where not read. */
  public static final class Row {
    public long seq;
    public UUID id;
    public String aggregateType;
    public String aggregateId;
    public String eventType;
    public int schemaVersion;
    public String destination;
    public String tenant;
    public String contentType;
    public Instant occurredAt;
    public Instant availableAt;
    public Instant expiresAt;
    public String status;
    public int attempts;
    public int uncertainSends;
    public int leaseLosses;
    public String lastError;
    public Instant finishedAt;
    public String leaseOwner;
    public Instant leaseUntil;
    public Long aggregateVersion;
    public String supersedeKey;
    public int priority;
    public Map<String, String> headers;
    public String headersText;
    public byte[] payload;
  }

  static Row read(ResultSet rs, CompiledDialect sql, boolean headers, boolean payload)
      throws SQLException {
    Row r = new Row();
    r.seq = rs.getLong("seq");
    r.id = sql.getUuid(rs, "id");
    r.aggregateType = rs.getString("aggregate_type");
    r.aggregateId = rs.getString("aggregate_id");
    r.eventType = rs.getString("event_type");
    r.schemaVersion = rs.getInt("schema_version");
    r.destination = rs.getString("destination");
    r.tenant = rs.getString("tenant");
    r.contentType = rs.getString("content_type");
    r.occurredAt = sql.getInstant(rs, "occurred_at");
    r.availableAt = sql.getInstant(rs, "available_at");
    r.expiresAt = sql.getInstant(rs, "expires_at");
    r.status = rs.getString("status");
    r.attempts = rs.getInt("attempts");
    r.uncertainSends = rs.getInt("uncertain_sends");
    r.leaseLosses = rs.getInt("lease_losses");
    r.lastError = rs.getString("last_error");
    r.finishedAt = sql.getInstant(rs, "published_at");
    r.leaseOwner = rs.getString("lease_owner");
    r.leaseUntil = sql.getInstant(rs, "lease_until");
    long version = rs.getLong("aggregate_version");
    r.aggregateVersion = rs.wasNull() ? null : version;
    r.supersedeKey = rs.getString("supersede_key");
    r.priority = rs.getInt("priority");
    if (headers) {
      r.headersText = rs.getString("headers");
      r.headers = decodeLeniently(r.headersText);
    }
    if (payload) {
      r.payload = rs.getBytes("payload");
    }
    return r;
  }

  /** Headers as stored; null if the text is not the codec's JSON (then only the text is shown). */
  private static Map<String, String> decodeLeniently(String text) {
    try {
      return HeadersCodec.decode(text);
    } catch (RuntimeException unreadable) {
      return null;
    }
  }
}
