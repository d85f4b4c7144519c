package dev.outboxkit.benchmarks;

import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import javax.sql.DataSource;

/**
 * Scenario 2: drain N pending events with a null transport, relay versus a hand-written loop that
 * does the minimum SQL at the same batch size (claim with SKIP LOCKED, then one UPDATE to
 * PUBLISHED), measured in the same run on the same table.
 */
final class DrainBenchmark {
  private static final String TABLE = "outbox_event";

  private final TestDatabase db;
  private final DataSource ds;
  private final Dialect dialect;

  DrainBenchmark(TestDatabase db, Dialect dialect) {
    this.db = db;
    this.ds = db.dataSource();
    this.dialect = dialect;
  }

  /** Empties the table and inserts {@code events} PENDING rows spread over {@code aggregates}. */
  void load(int events, int aggregates) throws SQLException {
    EventLoader.pendingOnly(ds, dialect, TABLE, events, aggregates);
  }

  /** Events per second the relay drains with a transport that confirms at once. */
  double relay(int events, int batchSize, boolean ordered) {
    return RelayDrain.eventsPerSecond(ds, TABLE, batchSize, ordered, events);
  }

  /** Events per second of the hand-written minimum: claim, then mark published, per batch. */
  double baseline(int events, int batchSize) throws SQLException {
    long start = System.nanoTime();
    int drained = 0;
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      List<Long> seqs = new ArrayList<>(batchSize);
      while (true) {
        seqs.clear();
        if (dialect == Dialect.POSTGRESQL) {
          claimPostgres(c, batchSize, seqs);
        } else {
          claimMySql(c, batchSize, seqs);
        }
        c.commit();
        if (seqs.isEmpty()) {
          break;
        }
        markPublished(c, seqs);
        c.commit();
        drained += seqs.size();
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    check(events, drained);
    return drained / seconds;
  }

  private static void claimPostgres(Connection c, int batchSize, List<Long> seqs)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE outbox_event SET status = 'IN_FLIGHT', lease_owner = 'baseline',"
                + " lease_until = now() + INTERVAL '60 seconds'"
                + " WHERE seq IN (SELECT seq FROM outbox_event WHERE status = 'PENDING'"
                + " AND available_at <= now() ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED)"
                + " RETURNING seq, id, aggregate_type, aggregate_id, event_type, payload, headers")) {
      ps.setInt(1, batchSize);
      readClaimed(ps, seqs);
    }
  }

  private static void claimMySql(Connection c, int batchSize, List<Long> seqs) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT seq, id, aggregate_type, aggregate_id, event_type, payload, headers"
                + " FROM outbox_event WHERE status = 'PENDING' AND available_at <= UTC_TIMESTAMP(6)"
                + " ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED")) {
      ps.setInt(1, batchSize);
      readClaimed(ps, seqs);
    }
    if (seqs.isEmpty()) {
      return;
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE outbox_event SET status = 'IN_FLIGHT', lease_owner = 'baseline',"
                + " lease_until = UTC_TIMESTAMP(6) + INTERVAL 60 SECOND"
                + " WHERE seq IN ("
                + marks(seqs.size())
                + ")")) {
      bind(ps, 1, seqs);
      ps.executeUpdate();
    }
  }

  private static void readClaimed(PreparedStatement ps, List<Long> seqs) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        seqs.add(rs.getLong(1));
        // Read what a publisher needs, as the relay does.
        rs.getString(2);
        rs.getString(3);
        rs.getString(4);
        rs.getString(5);
        rs.getBytes(6);
        rs.getString(7);
      }
    }
  }

  private void markPublished(Connection c, List<Long> seqs) throws SQLException {
    String now = dialect == Dialect.POSTGRESQL ? "now()" : "UTC_TIMESTAMP(6)";
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE outbox_event SET status = 'PUBLISHED', published_at = "
                + now
                + ", lease_owner = NULL, lease_until = NULL WHERE seq IN ("
                + marks(seqs.size())
                + ")")) {
      bind(ps, 1, seqs);
      ps.executeUpdate();
    }
  }

  private static String marks(int n) {
    StringJoiner j = new StringJoiner(", ");
    for (int i = 0; i < n; i++) {
      j.add("?");
    }
    return j.toString();
  }

  private static void bind(PreparedStatement ps, int from, List<Long> seqs) throws SQLException {
    int i = from;
    for (long seq : seqs) {
      ps.setLong(i++, seq);
    }
  }

  private void check(int expected, int drained) {
    long published = OutboxAdmin.create(ds).count(EventStatus.PUBLISHED);
    if (drained != expected || published != expected) {
      throw new IllegalStateException(
          "drained "
              + drained
              + ", published "
              + published
              + ", expected "
              + expected
              + " on "
              + db);
    }
  }

  static Duration time(Runnable r) {
    long start = System.nanoTime();
    r.run();
    return Duration.ofNanos(System.nanoTime() - start);
  }
}
