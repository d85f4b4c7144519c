package dev.outboxkit.jdbc.internal;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** The relay's threads' one way to pause: park until a time passes or a condition stops holding. */
final class Parking {
  private Parking() {}

  /**
   * Parks the calling thread for {@code d} while {@code goOn} holds; whoever makes it false unparks
   * the thread to end the pause at once.
   */
  static void park(Duration d, BooleanSupplier goOn, Object blocker) {
    long deadline = System.nanoTime() + d.toNanos();
    while (goOn.getAsBoolean()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return;
      }
      LockSupport.parkNanos(blocker, left);
    }
  }
}
