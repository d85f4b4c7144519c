package dev.outboxkit.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits in tests for what other threads, relays or processes bring about: polls a condition until
 * it holds or a time limit passes. The limits are bounds for a loaded machine, not timings under
 * test.
 */
public final class Await {
  /** The first polls come quickly, for conditions met at once. */
  private static final long FIRST_PAUSE_MILLIS = 10;

  /** Later ones at most this often: conditions that query the database load it little. */
  private static final long LONGEST_PAUSE_MILLIS = 100;

  private Await() {}

  /**
   * Returns once the condition holds; polls it at once, then at growing pauses of 10 to 100 ms.
   *
   * @throws AssertionError {@code "gave up after <timeout> waiting for <what>"} when it still does
   *     not hold after the timeout; {@code what} is asked then, so it can report the state reached
   */
  public static void until(BooleanSupplier condition, Duration timeout, Supplier<String> what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long pause = FIRST_PAUSE_MILLIS;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("gave up after " + timeout + " waiting for " + what.get());
      }
      try {
        Thread.sleep(pause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for " + what.get(), e);
      }
      pause = Math.min(pause * 2, LONGEST_PAUSE_MILLIS);
    }
  }

  /** {@link #until(BooleanSupplier, Duration, Supplier)} with a fixed description. */
  public static void until(BooleanSupplier condition, Duration timeout, String what) {
    until(condition, timeout, () -> what);
  }
}
