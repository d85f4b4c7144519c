package dev.outboxkit.jdbc.internal;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's background thread and its pause policy: rounds back to back while batches come back
 * full; after a short batch an idle pause that doubles up to the poll interval and ends early on a
 * wake-up; during a transport outage the breaker's pause; after a database failure a pause that
 * doubles over failures in a row. Outage and failure pauses ignore wake-ups, so an application that
 * wakes the relay after every commit cannot turn them into a spin.
 */
final class RelayWorker implements Runnable {
  private static final Logger log = LoggerFactory.getLogger("dev.outboxkit.jdbc.OutboxRelay");

  /** The shortest idle pause: the first poll after a batch that was not full. */
  static final Duration MIN_IDLE = Duration.ofMillis(5);

  /** The pause after the database failed once; it doubles over failures in a row. */
  static final Duration FIRST_DB_PAUSE = Duration.ofMillis(200);

  /** Longest pause after the database failed. */
  static final Duration MAX_DB_PAUSE = Duration.ofSeconds(30);

  private final RelaySettings settings;
  private final RelayCycle cycle;
  private final HealthMonitor health;
  private final Duration pollInterval;
  private final BooleanSupplier running;
  private final Function<SQLException, String> diagnose;
  private volatile Thread thread;
  private volatile boolean wakeRequested;
  private volatile boolean backingOff;
  private volatile boolean ended;

  /**
   * @param running false once the relay closes
   * @param diagnose what a database failure means, for the health and the log
   */
  RelayWorker(
      RelaySettings settings,
      RelayCycle cycle,
      HealthMonitor health,
      Duration pollInterval,
      BooleanSupplier running,
      Function<SQLException, String> diagnose) {
    this.settings = settings;
    this.cycle = cycle;
    this.health = health;
    this.pollInterval = pollInterval;
    this.running = running;
    this.diagnose = diagnose;
  }

  /** Whether the loop ended; while the relay runs, that is a failure of the JVM itself. */
  boolean ended() {
    return ended;
  }

  /**
   * Ends an idle pause at once (a pending wake-up ends the next one); an outage or failure pause is
   * honoured, and the wake-up stays pending until it ends.
   */
  void wakeUp() {
    wakeRequested = true;
    Thread t = thread;
    if (t != null && !backingOff) {
      LockSupport.unpark(t);
    }
  }

  /**
   * Survives every failure (the database's, the transport's, the listener's, an {@code Error} of
   * any of them) until the relay closes; should it end otherwise, it says so once at ERROR.
   */
  @Override
  public void run() {
    thread = Thread.currentThread();
    try {
      work();
    } finally {
      ended = true;
      if (running.getAsBoolean()) {
        log.error(
            "[{}] relay thread ended unexpectedly; the relay relays nothing more (state FAILED):"
                + " close it and build a new one",
            settings.name);
      }
    }
  }

  private void work() {
    Duration idle = MIN_IDLE;
    Duration dbPause = Duration.ZERO;
    long roundsBefore = 0;
    while (running.getAsBoolean()) {
      try {
        Duration outagePause = cycle.breaker().pauseLeft();
        if (!outagePause.isZero()) {
          cycle.settleStragglers();
          backOff(untilStragglerDeadline(outagePause));
          continue;
        }
        wakeRequested = false;
        roundsBefore = cycle.roundsAcknowledged();
        int handled = cycle.runWhileFull();
        health.roundSucceeded();
        dbPause = Duration.ZERO;
        if (handled >= settings.batchSize) {
          idle = MIN_IDLE;
          continue; // more are probably waiting
        }
        idle = handled > 0 ? MIN_IDLE : min(idle.multipliedBy(2), pollInterval);
        pause(untilStragglerDeadline(handled > 0 ? MIN_IDLE : idle));
      } catch (SQLException e) {
        // The pause grows only over failures in a row: rounds that went through before this one
        // (runWhileFull goes on while the backlog lasts) start it over.
        boolean progressed = cycle.roundsAcknowledged() != roundsBefore;
        dbPause =
            dbPause.isZero() || progressed
                ? FIRST_DB_PAUSE
                : min(dbPause.multipliedBy(2), MAX_DB_PAUSE);
        health.databaseFailed(diagnose.apply(e), dbPause);
        backOff(untilStragglerDeadline(dbPause));
      } catch (RuntimeException | Error e) {
        if (!running.getAsBoolean()) {
          break;
        }
        log.error("[{}] unexpected failure in the relay loop; continuing", settings.name, e);
        pause(pollInterval);
      }
      if (Thread.interrupted() && !running.getAsBoolean()) {
        Thread.currentThread().interrupt(); // close gave up waiting: stop what is left at once
        break;
      }
    }
    // Closing: sends left to finish on their own get until close gives up waiting.
    cycle.finishStragglers();
  }

  /**
   * {@code d}, or less when a send left to finish on its own reaches its time limit sooner: its
   * outcome must then be recorded within its lease.
   */
  private Duration untilStragglerDeadline(Duration d) {
    Duration next = cycle.untilNextStragglerDeadline();
    return next == null ? d : min(d, next.plus(MIN_IDLE));
  }

  /** Parks for {@code d} whatever {@link #wakeUp()} says; only the relay closing ends it early. */
  private void backOff(Duration d) {
    backingOff = true;
    try {
      Parking.park(d, running, this);
    } finally {
      backingOff = false;
    }
  }

  /** Parks for up to {@code d}; returns early on {@link #wakeUp()} or the relay closing. */
  private void pause(Duration d) {
    Parking.park(d, () -> running.getAsBoolean() && !wakeRequested, this);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
