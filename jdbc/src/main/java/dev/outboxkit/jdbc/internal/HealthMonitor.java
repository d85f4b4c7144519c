package dev.outboxkit.jdbc.internal;

import dev.outboxkit.Failures;
import dev.outboxkit.jdbc.RelayHealth;
import dev.outboxkit.jdbc.RelayListener;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a relay's health is made of: the streak of database failures of its own thread (with the
 * listener calls and log lines that go with it), its last successful round, and the transport's
 * outage as the breaker holds it. One per relay; thread-safe.
 */
final class HealthMonitor {
  private static final Logger log = LoggerFactory.getLogger(HealthMonitor.class);

  private final String name;
  private final Clock clock;
  private final RelayListener listener;
  private final OutageBreaker breaker;
  private volatile Instant lastRound;
  private Instant startedAt;
  private Instant upSince;
  private Instant failingSince;
  private String lastDatabaseError;

  /**
   * @param name the relay's name, for log lines
   * @param clock the relay's clock
   * @param listener told of failures and recoveries; what it throws is logged and ignored
   * @param breaker the transport's outage breaker
   */
  public HealthMonitor(String name, Clock clock, RelayListener listener, OutageBreaker breaker) {
    this.name = name;
    this.clock = clock;
    this.listener = listener;
    this.breaker = breaker;
  }

  /** The relay started: it is UP until a round says otherwise. */
  public synchronized void started() {
    startedAt = clock.instant();
    if (upSince == null) {
      upSince = startedAt;
    }
  }

  /** A round went through (also one that found nothing to claim): a streak of failures ends. */
  public void roundSucceeded() {
    Instant now = clock.instant();
    lastRound = now;
    Duration outage = null;
    synchronized (this) {
      if (failingSince != null) {
        outage = Duration.between(failingSince, now);
        failingSince = null;
        lastDatabaseError = null;
        upSince = now;
      }
    }
    if (outage != null) {
      log.info("[{}] database reachable again after {} ms", name, outage.toMillis());
      Duration d = outage;
      call(name, () -> listener.databaseRecovered(d));
    }
  }

  /**
   * A round failed on the database; logged at WARN (with what to do, where known) and told to the
   * listener.
   *
   * @param error what failed
   * @param pause the pause before the next try
   */
  public void databaseFailed(String error, Duration pause) {
    synchronized (this) {
      if (failingSince == null) {
        failingSince = clock.instant();
      }
      lastDatabaseError = error;
    }
    log.warn("[{}] database error, retrying in {} ms: {}", name, pause.toMillis(), error);
    call(name, () -> listener.databaseFailed(error, pause));
  }

  /**
   * The health now.
   *
   * @param downReason why the relay relays nothing whatever the database and transport do (not
   *     started, closed, its thread ended), or null while it runs
   */
  public synchronized RelayHealth health(String downReason) {
    Instant round = lastRound;
    if (downReason != null) {
      return RelayHealth.of(RelayHealth.Status.DOWN, null, downReason, round);
    }
    if (failingSince != null) {
      return RelayHealth.of(RelayHealth.Status.DOWN, failingSince, lastDatabaseError, round);
    }
    Instant outage = breaker.outageStart();
    if (outage != null) {
      String reason = breaker.outageReason();
      return RelayHealth.of(
          RelayHealth.Status.DEGRADED,
          outage,
          "transport unavailable" + (reason == null ? "" : ": " + reason),
          round);
    }
    return RelayHealth.of(RelayHealth.Status.UP, upSince, null, round);
  }

  /**
   * Runs a listener call; whatever it throws, an Error too, is logged and goes no further.
   *
   * @param relay the relay's name, for the log line
   */
  static void call(String relay, Runnable notice) {
    try {
      notice.run();
    } catch (Throwable t) {
      log.warn("[{}] relay listener failed: {}", relay, Failures.describe(t));
    }
  }
}
