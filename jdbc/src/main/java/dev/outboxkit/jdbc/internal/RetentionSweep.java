package dev.outboxkit.jdbc.internal;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * Deletes rows past their retention: finished (PUBLISHED, EXPIRED, CANCELLED, SUPERSEDED) rows
 * finished longer ago than one retention, DEAD rows quarantined longer ago than another. The one
 * implementation behind {@code OutboxAdmin.purgeFinished} and a relay's scheduled retention.
 *
 * <p>It walks the primary key from the lowest seq in windows, one short transaction each: read the
 * window without locks, then delete its rows that are past retention by primary key, checking the
 * condition again. So each transaction's cost is bounded by the window, whatever the table holds (a
 * search by {@code published_at} would scan the whole table when little is old, and on InnoDB would
 * lock every row it scanned, holding up the relays' acknowledgements), and it locks only the rows
 * it deletes, which no relay touches any more. PENDING and IN_FLIGHT rows are never deleted.
 */
final class RetentionSweep {

  private final DataSource dataSource;
  private final String operation;
  private final TimeBound bound;
  private final SqlSource sql;

  /** The statements of the last window, for its error codes. */
  private volatile OutboxSql known;

  private final int window;
  private final int restPerWork;

  /**
   * @param operation the public method called on the application's thread, checked not to run in a
   *     JTA transaction (e.g. {@code OutboxAdmin.purgeFinished}); null on a relay's own thread
   * @param window rows read per transaction, and so the most deleted per transaction
   * @param restPerWork after each window, pause this many times as long as the window took: 0 to
   *     walk at full speed, 4 to take at most a fifth of one connection's time, so that a walk
   *     beside running relays leaves the database to them
   */
  public RetentionSweep(
      DataSource dataSource,
      String operation,
      TimeBound bound,
      SqlSource sql,
      int window,
      int restPerWork) {
    this.dataSource = dataSource;
    this.operation = operation;
    this.bound = bound;
    this.sql = sql;
    this.window = window;
    this.restPerWork = restPerWork;
  }

  /**
   * Walks the whole table once.
   *
   * @param finished retention of finished (PUBLISHED, EXPIRED, CANCELLED, SUPERSEDED) rows, or null
   *     to keep them
   * @param dead retention of DEAD rows, or null to keep them
   * @param stop checked between windows: true ends the walk early
   * @return rows deleted
   */
  public long purge(Duration finished, Duration dead, BooleanSupplier stop) throws SQLException {
    long[] params = {
      finished == null ? 0 : 1,
      finished == null ? 0 : Micros.of(finished),
      dead == null ? 0 : 1,
      dead == null ? 0 : Micros.of(dead)
    };
    long after = Long.MIN_VALUE;
    long deleted = 0;
    while (!stop.getAsBoolean()) {
      long started = System.nanoTime();
      Window w = window(after, params);
      deleted += w.deleted;
      if (w.rows < window) {
        return deleted;
      }
      after = w.lastSeq;
      if (restPerWork > 0) {
        // Unparked early when the relay closes; the stop check comes next.
        LockSupport.parkNanos(this, (System.nanoTime() - started) * restPerWork);
      }
    }
    return deleted;
  }

  /**
   * One window in its own transaction. On InnoDB the delete may meet a relay's claim on the same
   * index pages and be chosen as the deadlock victim; the server rolled it back whole, so it runs
   * again, as the relay's own transactions do.
   */
  private Window window(long after, long[] params) throws SQLException {
    for (int attempt = 1; ; attempt++) {
      try {
        return Transactions.inOwnTransaction(
            dataSource, operation, bound, c -> readAndDelete(c, after, params));
      } catch (SQLException e) {
        if (attempt == RelayStore.DEADLOCK_ATTEMPTS || !RelayStore.isDeadlock(known, e)) {
          throw e;
        }
      }
    }
  }

  /** What one window held. */
  private static final class Window {
    final int rows;
    final long lastSeq;
    final int deleted;

    Window(int rows, long lastSeq, int deleted) {
      this.rows = rows;
      this.lastSeq = lastSeq;
      this.deleted = deleted;
    }
  }

  private Window readAndDelete(Connection c, long after, long[] params) throws SQLException {
    OutboxSql s = sql.sql(c);
    List<Long> old = new ArrayList<>();
    int rows = 0;
    long last = after;
    known = s;
    try (Query q = Query.prepare(c, s, Statements.RETENTION_WINDOW)) {
      bindConditions(q, params).setLong("after", after).setInt("limit", window);
      try (ResultSet rs = q.executeQuery()) {
        while (rs.next()) {
          rows++;
          last = rs.getLong(1);
          if (rs.getInt(2) == 1) {
            old.add(last);
          }
        }
      }
    }
    int deleted = 0;
    for (int from = 0; from < old.size(); from += Query.MAX_LIST) {
      List<Long> chunk = old.subList(from, Math.min(old.size(), from + Query.MAX_LIST));
      try (Query q = Query.prepare(c, s, Statements.PURGE_RETAINED, chunk.size())) {
        deleted += bindConditions(q, params).setSeqs("seqs", chunk).executeUpdate();
      }
    }
    return new Window(rows, last, deleted);
  }

  private static Query bindConditions(Query q, long[] params) throws SQLException {
    return q.setInt("finished_on", (int) params[0])
        .setLong("finished_age", params[1])
        .setInt("dead_on", (int) params[2])
        .setLong("dead_age", params[3]);
  }
}
