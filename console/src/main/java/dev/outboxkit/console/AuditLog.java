package dev.outboxkit.console;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The audit table: a row when an action starts, completed when it ends, so an action cut short by a
 * crash still shows who started it and with what filter. Each write is its own transaction.
 */
final class AuditLog {
  static final int MAX_CRITERIA = 2000;
  static final int MAX_OUTCOME = 1000;
  private static final String TABLE = ConsoleSchema.DEFAULT_AUDIT_TABLE;

  /** Longest time of one audit statement, so a hung database cannot hold a request forever. */
  static final int STATEMENT_TIMEOUT_SECONDS = 30;

  /** One audit row. */
  static final class Entry {
    final String id;
    final Instant at;
    final String actor;
    final String operation;
    final String criteria;
    final Long dryRunRows;
    final Long changedRows;
    final String outcome;

    Entry(
        String id,
        Instant at,
        String actor,
        String operation,
        String criteria,
        Long dryRunRows,
        Long changedRows,
        String outcome) {
      this.id = id;
      this.at = at;
      this.actor = actor;
      this.operation = operation;
      this.criteria = criteria;
      this.dryRunRows = dryRunRows;
      this.changedRows = changedRows;
      this.outcome = outcome;
    }
  }

  private final DataSource ds;

  AuditLog(DataSource ds) {
    this.ds = ds;
  }

  /** {@return the new row's id} Written before the action changes anything. */
  String started(String actor, String operation, String criteria, long dryRunRows)
      throws SQLException {
    String id = UUID.randomUUID().toString();
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(true);
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO "
                  + TABLE
                  + " (id, at_epoch_ms, actor, operation, criteria, dry_run_rows, changed_rows,"
                  + " outcome) VALUES (?, ?, ?, ?, ?, ?, NULL, 'started')")) {
        ps.setQueryTimeout(STATEMENT_TIMEOUT_SECONDS);
        ps.setString(1, id);
        ps.setLong(2, System.currentTimeMillis());
        ps.setString(3, cut(actor, 255));
        ps.setString(4, operation);
        ps.setString(5, cut(criteria, MAX_CRITERIA));
        ps.setLong(6, dryRunRows);
        ps.executeUpdate();
      }
    }
    return id;
  }

  void ended(String id, long changedRows, String outcome) throws SQLException {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(true);
      try (PreparedStatement ps =
          c.prepareStatement(
              "UPDATE " + TABLE + " SET changed_rows = ?, outcome = ? WHERE id = ?")) {
        ps.setQueryTimeout(STATEMENT_TIMEOUT_SECONDS);
        ps.setLong(1, changedRows);
        ps.setString(2, cut(outcome, MAX_OUTCOME));
        ps.setString(3, id);
        ps.executeUpdate();
      }
    }
  }

  /** {@return the newest entries, newest first} */
  List<Entry> newest(int limit) throws SQLException {
    List<Entry> entries = new ArrayList<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT id, at_epoch_ms, actor, operation, criteria, dry_run_rows, changed_rows,"
                    + " outcome FROM "
                    + TABLE
                    + " ORDER BY at_epoch_ms DESC")) {
      ps.setMaxRows(limit);
      ps.setQueryTimeout(STATEMENT_TIMEOUT_SECONDS);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          entries.add(
              new Entry(
                  rs.getString(1),
                  Instant.ofEpochMilli(rs.getLong(2)),
                  rs.getString(3),
                  rs.getString(4),
                  rs.getString(5),
                  nullable(rs, 6),
                  nullable(rs, 7),
                  rs.getString(8)));
        }
      }
      if (!c.getAutoCommit()) {
        c.commit();
      }
    }
    return entries;
  }

  private static Long nullable(ResultSet rs, int column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? null : v;
  }

  static String cut(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max - 1) + "…";
  }
}
