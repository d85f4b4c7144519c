package dev.outboxkit.benchmarks;

import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.testkit.Sql;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * Fills an outbox table server-side (PostgreSQL {@code generate_series}, MariaDB's {@code
 * seq_M_to_N} sequence engine), so a million rows take seconds instead of a million round trips.
 *
 * <p>Rows are numbered; row {@code n} has the id {@code 00000000-0000-7000-8000-<n in hex>} and the
 * aggregate {@code agg-<n mod aggregates>}. Ids grow with the row number, as the library's own
 * time-ordered (v7) ids do, and a number range never collides with another.
 */
final class EventLoader {
  /** Payload size of every loaded row. */
  static final int PAYLOAD_BYTES = 200;

  private EventLoader() {}

  /**
   * Inserts rows {@code first .. first+count-1} with {@code status}, spread round-robin over {@code
   * aggregates}, in row-number order (which becomes their claim order).
   */
  static void insert(
      DataSource ds,
      Dialect dialect,
      String table,
      long first,
      int count,
      int aggregates,
      EventStatus status)
      throws SQLException {
    long last = first + count - 1;
    String published = status == EventStatus.PUBLISHED ? "now()" : "NULL";
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      if (dialect == Dialect.POSTGRESQL) {
        s.execute(
            "INSERT INTO "
                + table
                + " (id, aggregate_type, aggregate_id, event_type, payload, content_type, headers,"
                + " occurred_at, available_at, status, published_at)"
                + " SELECT ('00000000-0000-7000-8000-' || lpad(to_hex(g), 12, '0'))::uuid,"
                + " 'Order', 'agg-' || (g % "
                + aggregates
                + "), 'OrderPlaced', convert_to(repeat('x', "
                + PAYLOAD_BYTES
                + "), 'UTF8'), 'application/json', '{\"k\":\"v\"}', now(), now(), '"
                + status
                + "', "
                + published
                + " FROM generate_series("
                + first
                + ", "
                + last
                + ") g ORDER BY g");
      } else {
        s.execute(
            "INSERT INTO "
                + table
                + " (id, aggregate_type, aggregate_id, event_type, payload, content_type, headers,"
                + " occurred_at, available_at, status, published_at)"
                + " SELECT CONCAT('00000000-0000-7000-8000-', LPAD(HEX(seq), 12, '0')),"
                + " 'Order', CONCAT('agg-', seq % "
                + aggregates
                + "), 'OrderPlaced', REPEAT('x', "
                + PAYLOAD_BYTES
                + "), 'application/json', '{\"k\":\"v\"}', UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), '"
                + status
                + "', "
                + published.replace("now()", "UTC_TIMESTAMP(6)")
                + " FROM seq_"
                + first
                + "_to_"
                + last
                + " ORDER BY seq");
      }
    }
  }

  /**
   * Empties the table, inserts rows {@code 1 .. events} as PENDING over {@code aggregates} and
   * analyzes: a fresh backlog.
   */
  static void pendingOnly(DataSource ds, Dialect dialect, String table, int events, int aggregates)
      throws SQLException {
    truncate(ds, table);
    insert(ds, dialect, table, 1, events, aggregates, EventStatus.PENDING);
    analyze(ds, dialect, table);
  }

  /** Deletes the rows after {@code keepThroughSeq} (all with 0), as between repetitions. */
  static void deleteAfter(DataSource ds, String table, long keepThroughSeq) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("DELETE FROM " + table + " WHERE seq > " + keepThroughSeq);
    }
  }

  /** Empties the table. */
  static void truncate(DataSource ds, String table) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("TRUNCATE TABLE " + table);
    }
  }

  /**
   * Brings statistics (and on PostgreSQL the visibility map) up to date, as autovacuum would have
   * after a bulk change in a real system.
   */
  static void analyze(DataSource ds, Dialect dialect, String table) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute((dialect == Dialect.POSTGRESQL ? "VACUUM ANALYZE " : "ANALYZE TABLE ") + table);
    }
  }

  /** The highest {@code seq} in the table, 0 when empty. */
  static long maxSeq(DataSource ds, String table) throws SQLException {
    return Sql.queryLong(ds, "SELECT COALESCE(MAX(seq), 0) FROM " + table);
  }

  /** Rows in the table. */
  static long count(DataSource ds, String table) throws SQLException {
    return Sql.queryLong(ds, "SELECT COUNT(*) FROM " + table);
  }
}
