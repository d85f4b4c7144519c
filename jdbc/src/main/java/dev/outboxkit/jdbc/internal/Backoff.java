package dev.outboxkit.jdbc.internal;

import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * Exponential backoff with full jitter: the delay before attempt {@code n + 1} is uniform in {@code
 * [0, min(max, initial * 2^(n-1))]}. Full jitter spreads retries of many events that failed
 * together, so they do not return as a herd.
 */
final class Backoff {
  private final Duration initial;
  private final Duration max;
  private final DoubleSupplier random;

  /**
   * @param initial the cap of the first delay
   * @param max the largest cap
   * @param random uniform values in [0, 1)
   */
  public Backoff(Duration initial, Duration max, DoubleSupplier random) {
    this.initial = initial;
    this.max = max;
    this.random = random;
  }

  /** The upper bound of the delay after the given (1-based) failed attempt. */
  public Duration cap(int failedAttempts) {
    long maxNanos = max.toNanos();
    long cap = Math.min(initial.toNanos(), maxNanos);
    for (int i = 1; i < failedAttempts && cap < maxNanos; i++) {
      cap = cap > maxNanos / 2 ? maxNanos : cap * 2;
    }
    return Duration.ofNanos(cap);
  }

  /** A jittered delay after the given (1-based) failed attempt. */
  public Duration delay(int failedAttempts) {
    return Duration.ofNanos((long) (cap(failedAttempts).toNanos() * random.getAsDouble()));
  }
}
