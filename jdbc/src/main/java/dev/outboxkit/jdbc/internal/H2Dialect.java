package dev.outboxkit.jdbc.internal;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * H2 2.x, for development and tests. Claims like MySQL (candidates, locking re-check, update), with
 * {@code CURRENT_TIMESTAMP} as the clock.
 */
public final class H2Dialect extends SqlDialect {

  @Override
  public String name() {
    return "H2";
  }

  @Override
  public String schemaResource() {
    return "h2.sql";
  }

  @Override
  public String insert() {
    return """
        INSERT INTO {table} (id, aggregate_type, aggregate_id, event_type, schema_version,
                             destination, tenant, payload, content_type, headers, occurred_at,
                             available_at, expires_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP), ?)""";
  }

  @Override
  public boolean claimsInOneStatement() {
    return false;
  }

  @Override
  public String lockUnordered() {
    return """
        SELECT seq, id, aggregate_type, aggregate_id, event_type, schema_version, destination,
               tenant, payload, content_type, headers, occurred_at, expires_at, attempts,
               (expires_at <= CURRENT_TIMESTAMP) AS expired
          FROM {table}
         WHERE status = 'PENDING' AND available_at <= CURRENT_TIMESTAMP
         ORDER BY seq
         LIMIT ?
           FOR UPDATE SKIP LOCKED""";
  }

  @Override
  public String orderedCandidates() {
    return """
        SELECT c.seq FROM {table} c
         WHERE c.status = 'PENDING' AND c.available_at <= CURRENT_TIMESTAMP
           AND NOT EXISTS (SELECT 1 FROM {table} p
                            WHERE p.aggregate_type = c.aggregate_type
                              AND p.aggregate_id = c.aggregate_id
                              AND p.status IN ('PENDING', 'IN_FLIGHT', 'DEAD')
                              AND p.seq < c.seq)
         ORDER BY c.seq
         LIMIT ?""";
  }

  @Override
  public String lockCandidates() {
    return """
        SELECT seq, id, aggregate_type, aggregate_id, event_type, schema_version, destination,
               tenant, payload, content_type, headers, occurred_at, expires_at, attempts,
               (expires_at <= CURRENT_TIMESTAMP) AS expired
          FROM {table}
         WHERE seq IN ({seqs}) AND status = 'PENDING' AND available_at <= CURRENT_TIMESTAMP
         ORDER BY seq
         LIMIT ?
           FOR UPDATE SKIP LOCKED""";
  }

  @Override
  public String markClaimed() {
    return """
        UPDATE {table}
           SET status = 'IN_FLIGHT', lease_owner = ?,
               lease_until = DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP), attempts = attempts + 1
         WHERE seq IN ({seqs})""";
  }

  @Override
  public String reclaimExpiredLeases() {
    return """
        UPDATE {table} SET status = 'PENDING', lease_owner = NULL, lease_until = NULL
         WHERE status = 'IN_FLIGHT' AND lease_until <= CURRENT_TIMESTAMP""";
  }

  @Override
  public String markPublished() {
    return """
        UPDATE {table}
           SET status = 'PUBLISHED', published_at = CURRENT_TIMESTAMP, lease_owner = NULL,
               lease_until = NULL
         WHERE lease_owner = ? AND status = 'IN_FLIGHT' AND seq IN ({seqs})""";
  }

  @Override
  public String deletePublished() {
    return """
        DELETE FROM {table}
         WHERE lease_owner = ? AND status = 'IN_FLIGHT' AND seq IN ({seqs})""";
  }

  @Override
  public String release() {
    return """
        UPDATE {table}
           SET status = 'PENDING', attempts = attempts - 1, lease_owner = NULL, lease_until = NULL
         WHERE lease_owner = ? AND status = 'IN_FLIGHT' AND seq IN ({seqs})""";
  }

  @Override
  public String markExpired() {
    return """
        UPDATE {table}
           SET status = 'EXPIRED', published_at = CURRENT_TIMESTAMP, lease_owner = NULL,
               lease_until = NULL
         WHERE lease_owner = ? AND status = 'IN_FLIGHT' AND seq IN ({seqs})""";
  }

  @Override
  public String markRetry() {
    return """
        UPDATE {table}
           SET status = 'PENDING', available_at = DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP),
               attempts = attempts - ?, last_error = ?, lease_owner = NULL, lease_until = NULL
         WHERE seq = ? AND lease_owner = ? AND status = 'IN_FLIGHT'""";
  }

  @Override
  public String markDead() {
    return """
        UPDATE {table}
           SET status = 'DEAD', last_error = ?, lease_owner = NULL, lease_until = NULL
         WHERE seq = ? AND lease_owner = ? AND status = 'IN_FLIGHT'""";
  }

  @Override
  public String countStatus() {
    return "SELECT COUNT(*) FROM {table} WHERE status = ?";
  }

  @Override
  public String countByStatus() {
    return "SELECT status, COUNT(*) AS n FROM {table} GROUP BY status";
  }

  @Override
  public String oldestPending() {
    return """
        SELECT (SELECT occurred_at FROM {table} WHERE status = 'PENDING' ORDER BY seq LIMIT 1)
                 AS oldest,
               CURRENT_TIMESTAMP AS db_now""";
  }

  @Override
  public String snapshot() {
    return """
        SELECT (SELECT COUNT(*) FROM {table} WHERE status = 'PENDING') AS pending,
               (SELECT COUNT(*) FROM {table} WHERE status = 'IN_FLIGHT') AS in_flight,
               (SELECT COUNT(*) FROM {table} WHERE status = 'DEAD') AS dead,
               (SELECT occurred_at FROM {table} WHERE status = 'PENDING' ORDER BY seq LIMIT 1)
                 AS oldest,
               CURRENT_TIMESTAMP AS db_now""";
  }

  @Override
  public String listDead() {
    return """
        SELECT seq, id, aggregate_type, aggregate_id, event_type, attempts, last_error,
               occurred_at
          FROM {table}
         WHERE status = 'DEAD' AND seq > ?
         ORDER BY seq
         LIMIT ?""";
  }

  @Override
  public String replayDead() {
    return """
        UPDATE {table}
           SET status = 'PENDING', attempts = 0, available_at = CURRENT_TIMESTAMP,
               last_error = NULL
         WHERE id = ? AND status = 'DEAD'""";
  }

  @Override
  public String replayAllDead() {
    return """
        UPDATE {table}
           SET status = 'PENDING', attempts = 0, available_at = CURRENT_TIMESTAMP,
               last_error = NULL
         WHERE status = 'DEAD'""";
  }

  @Override
  public String discardDead() {
    return "DELETE FROM {table} WHERE id = ? AND status = 'DEAD'";
  }

  @Override
  public String purgeFinished() {
    return """
        DELETE FROM {table}
         WHERE seq IN (SELECT seq FROM {table}
                        WHERE status IN ('PUBLISHED', 'EXPIRED')
                          AND published_at < DATEADD(MICROSECOND, -?, CURRENT_TIMESTAMP)
                        ORDER BY seq
                        LIMIT ?)""";
  }

  @Override
  public void setInstant(PreparedStatement ps, int index, Instant instant) throws SQLException {
    if (instant == null) {
      ps.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      ps.setObject(index, instant.atOffset(ZoneOffset.UTC));
    }
  }

  @Override
  public Instant getInstant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  @Override
  public String inboxSchemaResource() {
    return "inbox-h2.sql";
  }

  @Override
  public String inboxInsert() {
    return """
        MERGE INTO {table} t
        USING (VALUES (CAST(? AS VARCHAR(200)), CAST(? AS UUID))) s (consumer, event_id)
           ON t.consumer = s.consumer AND t.event_id = s.event_id
         WHEN NOT MATCHED THEN
              INSERT (consumer, event_id, processed_at)
              VALUES (s.consumer, s.event_id, CURRENT_TIMESTAMP)""";
  }

  @Override
  public String inboxPurge() {
    return """
        DELETE FROM {table}
         WHERE (consumer, event_id) IN (SELECT consumer, event_id FROM {table}
                                         WHERE processed_at < DATEADD(MICROSECOND, -?, CURRENT_TIMESTAMP)
                                         LIMIT ?)""";
  }
}
