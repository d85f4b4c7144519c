package dev.outboxkit.jdbc.internal;

import java.time.Duration;

/** Durations as whole microseconds, the unit every dialect's interval arithmetic is given. */
public final class Micros {
  private Micros() {}

  /** The duration in microseconds, truncated. */
  public static long of(Duration d) {
    return d.getSeconds() * 1_000_000L + d.getNano() / 1_000;
  }
}
