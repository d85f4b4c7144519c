package dev.outboxkit.jdbc.internal;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The seq where a relay's scanning claims start reading the PENDING index, where the dialect can
 * say ({@link Statements#CLAIM_FLOOR}, PostgreSQL's).
 *
 * <p>Every claimed event leaves an entry for its PENDING version in that index, at its low end.
 * Vacuum removes these, and scans mark them dead once no transaction can see them; but while a long
 * transaction elsewhere in the database holds the xmin horizon back (a report, a forgotten {@code
 * BEGIN}, a logical slot), neither can, and every claim walks past all of them, checking each in
 * the table: after ten minutes at 500 events a second, 30 ms a claim. A claim that starts at a
 * floor skips them in the index.
 *
 * <p>The floor is walked afresh every second at least (less often when the walk itself is slow: at
 * most a fiftieth of the time goes to it). It is the lesser of
 *
 * <ul>
 *   <li>the first PENDING event that is due (in ordered mode, among those not behind a DEAD event
 *       of their aggregate, which cannot be claimed until the DEAD one is replayed or discarded),
 *       and
 *   <li>one past the highest seq committed at the walk before: an append that took its seq before
 *       then and commits later, out of seq order, is above the floor unless its transaction ran for
 *       longer than a walk's period.
 * </ul>
 *
 * An event that becomes claimable below the floor (an append from such a long transaction, a retry,
 * a replay, a recovered lease, a delay that ran out) is claimed after the next walk, so at most a
 * period later than without a floor; nothing waits longer.
 */
final class ClaimFloor {
  private static final long MIN_PERIOD_NANOS = 1_000_000_000L;
  private static final int PERIODS_PER_WALK = 50;
  // Events coming due within this many microseconds count as due: a retry's backoff or a delay
  // running out between two walks finds the floor below it already.
  private static final long AHEAD_MICROS = 10_000_000;

  private final boolean ordered;
  private final long minPeriodNanos;
  private final int periodsPerWalk;
  // 0 until two walks have been made: no floor.
  private volatile long floor;
  private long lastSeqBefore = -1;
  private volatile long nextWalkNanos = System.nanoTime();

  ClaimFloor(boolean ordered) {
    this(ordered, MIN_PERIOD_NANOS, PERIODS_PER_WALK);
  }

  /** For tests: {@code (ordered, 0, 0)} walks at every claim. */
  ClaimFloor(boolean ordered, long minPeriodNanos, int periodsPerWalk) {
    this.ordered = ordered;
    this.minPeriodNanos = minPeriodNanos;
    this.periodsPerWalk = periodsPerWalk;
  }

  /**
   * Drops the floor: claims read the whole index until two walks have set it again.
   *
   * @return whether a floor was in use
   */
  synchronized boolean drop() {
    boolean was = floor > 0;
    floor = 0;
    lastSeqBefore = -1;
    nextWalkNanos = System.nanoTime();
    return was;
  }

  /** {@return the floor for a claim now, walking it first on {@code c} if due; 0 for none} */
  long now(Connection c, OutboxSql s) throws SQLException {
    if (!s.has(Statements.CLAIM_FLOOR)) {
      return 0;
    }
    if (System.nanoTime() - nextWalkNanos >= 0) {
      walk(c, s);
    }
    return floor;
  }

  private synchronized void walk(Connection c, OutboxSql s) throws SQLException {
    long started = System.nanoTime();
    if (started - nextWalkNanos < 0) {
      return; // another claim walked it meanwhile
    }
    long firstDue;
    long lastSeq;
    try (Query q =
            Query.prepare(c, s, Statements.CLAIM_FLOOR)
                .setInt("ordered", ordered ? 1 : 0)
                .setLong("ahead", AHEAD_MICROS);
        ResultSet rs = q.executeQuery()) {
      rs.next();
      firstDue = rs.getLong("first_due");
      firstDue = rs.wasNull() ? Long.MAX_VALUE : firstDue;
      lastSeq = rs.getLong("last_seq"); // 0 for an empty table
    }
    floor = lastSeqBefore < 0 ? 0 : Math.min(firstDue, lastSeqBefore + 1);
    lastSeqBefore = lastSeq;
    long took = System.nanoTime() - started;
    nextWalkNanos = System.nanoTime() + Math.max(minPeriodNanos, took * periodsPerWalk);
  }
}
