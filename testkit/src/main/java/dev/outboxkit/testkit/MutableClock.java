package dev.outboxkit.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock tests move by hand instead of sleeping; UTC. Thread-safe. */
public final class MutableClock extends Clock {
  private volatile Instant now;

  /** A clock at 2026-01-01T00:00:00Z. */
  public MutableClock() {
    this(Instant.parse("2026-01-01T00:00:00Z"));
  }

  /**
   * @param start where the clock stands until moved
   */
  public MutableClock(Instant start) {
    this.now = start;
  }

  /** Moves the clock forward (or back, for a negative duration). */
  public void advance(Duration d) {
    now = now.plus(d);
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  /** The same clock: it always reads UTC. */
  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public String toString() {
    return "MutableClock[" + now + "]";
  }
}
