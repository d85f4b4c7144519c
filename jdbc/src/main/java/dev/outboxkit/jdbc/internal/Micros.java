package dev.outboxkit.jdbc.internal;

import java.time.Duration;

/** Durations as whole microseconds, the unit every dialect's interval arithmetic is given. */
final class Micros {
  private Micros() {}

  /**
   * The duration in microseconds, truncated.
   *
   * @throws IllegalArgumentException if it does not fit a long (about 292,000 years): a wrapped
   *     value would turn a "forever" delay into a negative one and send the event at once
   */
  public static long of(Duration d) {
    try {
      return Math.addExact(Math.multiplyExact(d.getSeconds(), 1_000_000L), d.getNano() / 1_000);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          d + " is too long to count in microseconds (the limit is about 292,000 years)", e);
    }
  }
}
