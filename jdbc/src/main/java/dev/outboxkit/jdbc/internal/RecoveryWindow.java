package dev.outboxkit.jdbc.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * How far back the relay's next lease recovery reads: the leases that ran out since its last
 * recovery began, plus a margin of one lease duration, and every expired lease at least once a
 * lease duration.
 *
 * <p>A recovery hands back every lease that had run out when it read. What it cannot have seen is a
 * claim that committed after it read, with a lease that ran out before: one whose transaction
 * started more than a lease before the recovery and lasted past it. The margin covers claims that
 * took up to a lease duration beyond that, far longer than the relay's statement timeout lets them;
 * anything the window still misses (a slower claim, a clock step) waits for the next full read, at
 * most one lease duration later. Reading only the window matters under a long transaction elsewhere
 * in the database: it keeps the lease index's entries of every row that was ever IN_FLIGHT, and a
 * full read visits each of them.
 */
final class RecoveryWindow {
  /** A window that reads every expired lease: a century, which every dialect's clock can move. */
  static final long EVERY_LEASE_MICROS = TimeUnit.DAYS.toMicros(36_525);

  private final long marginNanos;
  private boolean read;
  private long lastStartNanos;
  private long lastFullNanos;

  RecoveryWindow(Duration lease) {
    this.marginNanos = lease.toNanos();
  }

  /**
   * {@return the window of a recovery starting at {@code startNanos} (System.nanoTime), in
   * microseconds; 0 for every expired lease}
   */
  synchronized long micros(long startNanos) {
    if (!read || startNanos - lastFullNanos >= marginNanos) {
      return 0;
    }
    return TimeUnit.NANOSECONDS.toMicros(startNanos - lastStartNanos + marginNanos);
  }

  /** Records a recovery that started at {@code startNanos} and completed. */
  synchronized void recovered(long startNanos, boolean everyLease) {
    read = true;
    lastStartNanos = startNanos;
    if (everyLease) {
      lastFullNanos = startNanos;
    }
  }
}
