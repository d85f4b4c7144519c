package dev.outboxkit.benchmarks;

import static dev.outboxkit.jdbc.EventStatus.DEAD;
import static dev.outboxkit.jdbc.EventStatus.IN_FLIGHT;
import static dev.outboxkit.jdbc.EventStatus.PENDING;

import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.RelayListener;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * One relay drains a table with a null transport on the calling thread; the run is verified (every
 * loaded event delivered exactly once, nothing left unfinished) before its rate counts.
 */
final class RelayDrain {
  private static final long POLL_MILLIS = 5;

  private RelayDrain() {}

  /**
   * Drains {@code table} with one relay and returns events per second.
   *
   * @param expected the events waiting in the table
   * @throws IllegalStateException if the run did not publish exactly those events, once each
   */
  static double eventsPerSecond(
      DataSource ds, String table, int batchSize, boolean ordered, int expected) {
    return drain(ds, table, batchSize, ordered, expected, null, null).eventsPerSecond();
  }

  /**
   * Drains {@code table} with one relay, stopping after {@code timeLimit} (null: none); then the
   * rate is over the events drained so far, and only those are verified.
   *
   * @param expected the events waiting in the table
   * @param listener the relay's listener, or null for none
   * @throws IllegalStateException if an event was published twice or out of order, or if the drain
   *     ended early or left an event unfinished before the limit
   */
  static Drained drain(
      DataSource ds,
      String table,
      int batchSize,
      boolean ordered,
      int expected,
      Duration timeLimit,
      RelayListener listener) {
    Deliveries deliveries = new Deliveries();
    OutboxRelay.Builder builder =
        OutboxRelay.builder(ds, deliveries)
            .name("bench")
            .table(table)
            .batchSize(batchSize)
            .ordered(ordered);
    if (listener != null) {
      builder.listener(listener);
    }
    try (OutboxRelay relay = builder.build()) {
      long start = System.nanoTime();
      long deadline = timeLimit == null ? Long.MAX_VALUE : start + timeLimit.toNanos();
      int drained = 0;
      int n;
      while (System.nanoTime() - deadline < 0 && (n = relay.runOnce()) > 0) {
        drained += n;
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      String what = (ordered ? "ordered" : "unordered") + " drain of " + table;
      boolean complete = drained == expected;
      deliveries.check(drained, what);
      if (complete) {
        checkFinished(ds, table, what);
      } else if (timeLimit == null || seconds < timeLimit.toSeconds()) {
        throw new IllegalStateException(what + ": drained " + drained + ", expected " + expected);
      }
      if (ordered && deliveries.outOfOrder() != 0) {
        throw new IllegalStateException(
            what + ": " + deliveries.outOfOrder() + " events published out of order");
      }
      return new Drained(drained / seconds, complete);
    }
  }

  /**
   * A drain's rate.
   *
   * @param eventsPerSecond events drained per second
   * @param complete whether it drained every event, rather than stopping at its time limit
   */
  record Drained(double eventsPerSecond, boolean complete) {}

  /**
   * Waits until no event of {@code table} is PENDING or IN_FLIGHT, polling every few milliseconds,
   * as the end of a run of relays working in the background.
   *
   * @throws IllegalStateException if that takes longer than {@code timeout}
   */
  static void awaitDrained(DataSource ds, String table, Duration timeout, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (anyLive(ds, table)) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            what
                + ": not drained within "
                + timeout
                + ": "
                + OutboxAdmin.builder(ds).table(table).build().countByStatus());
      }
      Thread.sleep(POLL_MILLIS);
    }
  }

  /**
   * Whether any event is PENDING or IN_FLIGHT: two index probes, not counts, so that polling every
   * few milliseconds costs the database (whose CPU time the scale-out scenario reports) next to
   * nothing.
   */
  private static boolean anyLive(DataSource ds, String table) {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      for (EventStatus status : new EventStatus[] {PENDING, IN_FLIGHT}) {
        try (ResultSet rs =
            s.executeQuery("SELECT 1 FROM " + table + " WHERE status = '" + status + "' LIMIT 1")) {
          if (rs.next()) {
            return true;
          }
        }
      }
      return false;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot poll " + table, e);
    }
  }

  /** Throws if any event of {@code table} is still PENDING, IN_FLIGHT or DEAD. */
  static void checkFinished(DataSource ds, String table, String what) {
    OutboxAdmin admin = OutboxAdmin.builder(ds).table(table).build();
    for (EventStatus s : new EventStatus[] {PENDING, IN_FLIGHT, DEAD}) {
      long n = admin.count(s);
      if (n != 0) {
        throw new IllegalStateException(what + ": " + n + " events left " + s);
      }
    }
  }
}
