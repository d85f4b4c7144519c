package dev.outboxkit.jdbc.internal;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.UUID;

/**
 * MySQL 8.0+. Times are DATETIME(6) holding UTC, compared with {@code UTC_TIMESTAMP(6)}, bound as
 * text and read as {@link LocalDateTime}: Connector/J shifts neither by a time zone. Text, because
 * Connector/J drops the fractional seconds of temporal parameters when the server reports a version
 * below 5.6.4 — which MariaDB does ({@code 5.5.5-10.11.x-MariaDB}).
 *
 * <p>There is no {@code UPDATE … RETURNING}, and a locking read locks the rows of its subqueries
 * too (with SKIP LOCKED it would even skip them), so claims run as: a plain read of candidates, a
 * {@code FOR UPDATE SKIP LOCKED} read that re-checks them, and an update.
 *
 * <p>Every "first live rows in seq order" read says {@code IGNORE INDEX FOR ORDER BY (PRIMARY)}.
 * Without it, once live rows are more than a sliver of the table, the optimizer walks the primary
 * key in seq order expecting to meet them evenly spread; they all sit at its end, after the whole
 * PUBLISHED history, so each claim read every finished row (2 s per claim with 1,000,000). The hint
 * leaves the {@code (status, seq)} index, which yields live rows in seq order, and names no index
 * of ours, so renamed indexes in a user's copy of the DDL still work.
 */
public class MySqlDialect extends SqlDialect {
  private static final DateTimeFormatter DATETIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS");

  @Override
  public String name() {
    return "MySQL";
  }

  @Override
  public String schemaResource() {
    return "mysql.sql";
  }

  @Override
  public String insert() {
    return """
        INSERT INTO {table} (id, aggregate_type, aggregate_id, event_type, schema_version,
                             destination, tenant, payload, content_type, headers, occurred_at,
                             available_at, expires_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, TIMESTAMPADD(MICROSECOND, ?, UTC_TIMESTAMP(6)), ?)""";
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
               (expires_at <= UTC_TIMESTAMP(6)) AS expired
          FROM {table} IGNORE INDEX FOR ORDER BY (PRIMARY)
         WHERE status = 'PENDING' AND available_at <= UTC_TIMESTAMP(6)
         ORDER BY seq
         LIMIT ?
           FOR UPDATE SKIP LOCKED""";
  }

  @Override
  public String orderedCandidates() {
    // A consistent (non-locking) read. A candidate qualifies only if every earlier event of its
    // aggregate is finished (PUBLISHED or EXPIRED), states no row ever leaves, so a candidate
    // never turns out to be out of order once locked. One probe per unfinished status: with an
    // IN list the optimizer seeks only on the aggregate and reads its whole history per candidate;
    // with one status each probe seeks on (aggregate, status) and ranges on seq.
    return """
        SELECT c.seq FROM {table} c IGNORE INDEX FOR ORDER BY (PRIMARY)
         WHERE c.status = 'PENDING' AND c.available_at <= UTC_TIMESTAMP(6)
           AND NOT EXISTS (SELECT 1 FROM {table} p
                            WHERE p.aggregate_type = c.aggregate_type
                              AND p.aggregate_id = c.aggregate_id
                              AND p.status = 'PENDING' AND p.seq < c.seq)
           AND NOT EXISTS (SELECT 1 FROM {table} p
                            WHERE p.aggregate_type = c.aggregate_type
                              AND p.aggregate_id = c.aggregate_id
                              AND p.status = 'IN_FLIGHT' AND p.seq < c.seq)
           AND NOT EXISTS (SELECT 1 FROM {table} p
                            WHERE p.aggregate_type = c.aggregate_type
                              AND p.aggregate_id = c.aggregate_id
                              AND p.status = 'DEAD' AND p.seq < c.seq)
         ORDER BY c.seq
         LIMIT ?""";
  }

  @Override
  public String lockCandidates() {
    return """
        SELECT seq, id, aggregate_type, aggregate_id, event_type, schema_version, destination,
               tenant, payload, content_type, headers, occurred_at, expires_at, attempts,
               (expires_at <= UTC_TIMESTAMP(6)) AS expired
          FROM {table}
         WHERE seq IN ({seqs}) AND status = 'PENDING' AND available_at <= UTC_TIMESTAMP(6)
         ORDER BY seq
         LIMIT ?
           FOR UPDATE SKIP LOCKED""";
  }

  @Override
  public String markClaimed() {
    return """
        UPDATE {table}
           SET status = 'IN_FLIGHT', lease_owner = ?,
               lease_until = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)),
               attempts = attempts + 1
         WHERE seq IN ({seqs})""";
  }

  @Override
  public String reclaimExpiredLeases() {
    return """
        UPDATE {table} SET status = 'PENDING', lease_owner = NULL, lease_until = NULL
         WHERE status = 'IN_FLIGHT' AND lease_until <= UTC_TIMESTAMP(6)""";
  }

  @Override
  public String markPublished() {
    return """
        UPDATE {table}
           SET status = 'PUBLISHED', published_at = UTC_TIMESTAMP(6), lease_owner = NULL,
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
           SET status = 'EXPIRED', published_at = UTC_TIMESTAMP(6), lease_owner = NULL,
               lease_until = NULL
         WHERE lease_owner = ? AND status = 'IN_FLIGHT' AND seq IN ({seqs})""";
  }

  @Override
  public String markRetry() {
    return """
        UPDATE {table}
           SET status = 'PENDING', available_at = TIMESTAMPADD(MICROSECOND, ?, UTC_TIMESTAMP(6)),
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
        SELECT (SELECT occurred_at FROM {table} IGNORE INDEX FOR ORDER BY (PRIMARY)
                 WHERE status = 'PENDING' ORDER BY seq LIMIT 1)
                 AS oldest,
               UTC_TIMESTAMP(6) AS db_now""";
  }

  @Override
  public String snapshot() {
    return """
        SELECT (SELECT COUNT(*) FROM {table} WHERE status = 'PENDING') AS pending,
               (SELECT COUNT(*) FROM {table} WHERE status = 'IN_FLIGHT') AS in_flight,
               (SELECT COUNT(*) FROM {table} WHERE status = 'DEAD') AS dead,
               (SELECT occurred_at FROM {table} IGNORE INDEX FOR ORDER BY (PRIMARY)
                 WHERE status = 'PENDING' ORDER BY seq LIMIT 1)
                 AS oldest,
               UTC_TIMESTAMP(6) AS db_now""";
  }

  @Override
  public String listDead() {
    return """
        SELECT seq, id, aggregate_type, aggregate_id, event_type, attempts, last_error,
               occurred_at
          FROM {table} IGNORE INDEX FOR ORDER BY (PRIMARY)
         WHERE status = 'DEAD' AND seq > ?
         ORDER BY seq
         LIMIT ?""";
  }

  @Override
  public String replayDead() {
    return """
        UPDATE {table}
           SET status = 'PENDING', attempts = 0, available_at = UTC_TIMESTAMP(6), last_error = NULL
         WHERE id = ? AND status = 'DEAD'""";
  }

  @Override
  public String replayAllDead() {
    return """
        UPDATE {table}
           SET status = 'PENDING', attempts = 0, available_at = UTC_TIMESTAMP(6), last_error = NULL
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
         WHERE status IN ('PUBLISHED', 'EXPIRED')
           AND published_at < TIMESTAMPADD(MICROSECOND, -?, UTC_TIMESTAMP(6))
         ORDER BY seq
         LIMIT ?""";
  }

  @Override
  public String beforeRelayTransaction() {
    return "SET TRANSACTION ISOLATION LEVEL READ COMMITTED";
  }

  @Override
  public void setUuid(PreparedStatement ps, int index, UUID id) throws SQLException {
    ps.setString(index, id.toString());
  }

  @Override
  public UUID getUuid(ResultSet rs, String column) throws SQLException {
    String id = rs.getString(column);
    return id == null ? null : UUID.fromString(id);
  }

  @Override
  public void setInstant(PreparedStatement ps, int index, Instant instant) throws SQLException {
    if (instant == null) {
      ps.setNull(index, Types.TIMESTAMP);
    } else {
      ps.setString(index, DATETIME.format(LocalDateTime.ofInstant(instant, ZoneOffset.UTC)));
    }
  }

  @Override
  public Instant getInstant(ResultSet rs, String column) throws SQLException {
    LocalDateTime t = rs.getObject(column, LocalDateTime.class);
    return t == null ? null : t.toInstant(ZoneOffset.UTC);
  }

  @Override
  public String inboxSchemaResource() {
    return "inbox-mysql.sql";
  }

  @Override
  public String inboxInsert() {
    // IGNORE also downgrades other errors to warnings; Inbox validates its inputs first, so only
    // the duplicate key is left to ignore.
    return """
        INSERT IGNORE INTO {table} (consumer, event_id, processed_at)
        VALUES (?, ?, UTC_TIMESTAMP(6))""";
  }

  @Override
  public String inboxPurge() {
    return """
        DELETE FROM {table}
         WHERE processed_at < TIMESTAMPADD(MICROSECOND, -?, UTC_TIMESTAMP(6))
         LIMIT ?""";
  }
}
