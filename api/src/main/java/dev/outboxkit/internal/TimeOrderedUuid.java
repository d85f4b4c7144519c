package dev.outboxkit.internal;

import java.time.Clock;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Generates version 7 UUIDs (RFC 9562): 48 bits of Unix milliseconds, then a 12-bit counter that
 * keeps ids from one JVM strictly increasing within a millisecond (method 1 of the RFC), then 62
 * random bits. Time-ordered ids keep the unique index on {@code id} append-mostly.
 */
public final class TimeOrderedUuid {
  private static final int COUNTER_BITS = 12;
  private static final int COUNTER_MAX = (1 << COUNTER_BITS) - 1;

  private static long lastMillis;
  private static int counter;

  private TimeOrderedUuid() {}

  /**
   * @param clock source of the time part
   * @return a new version 7 UUID, greater than every earlier one from this JVM and clock
   */
  public static UUID next(Clock clock) {
    long millis = clock.millis();
    long millisAndCounter = reserve(millis);
    long ms = millisAndCounter >>> COUNTER_BITS;
    long seq = millisAndCounter & COUNTER_MAX;
    long msb = (ms << 16) | (0x7L << 12) | seq;
    long lsb = (ThreadLocalRandom.current().nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | Long.MIN_VALUE;
    return new UUID(msb, lsb);
  }

  /** Returns millis and counter packed together, never going backwards. */
  private static synchronized long reserve(long millis) {
    if (millis > lastMillis) {
      lastMillis = millis;
      // Start each millisecond at a random point in the lower half, leaving room to count up.
      counter = ThreadLocalRandom.current().nextInt(COUNTER_MAX / 2);
    } else if (++counter > COUNTER_MAX) {
      // Counter exhausted (or the clock went back): borrow the next millisecond.
      lastMillis++;
      counter = 0;
    }
    return (lastMillis << COUNTER_BITS) | counter;
  }
}
