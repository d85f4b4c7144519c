package dev.outboxkit.jdbc.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Circuit breaker for transport-wide outages. Closed: claim full batches. Tripped: claim nothing
 * until a jittered, growing pause has passed. Then half-open: claim a single event as a probe; a
 * probe that is answered (delivered, or an event-specific failure) closes the breaker, one that
 * meets the outage again trips it for longer. While the broker is down this keeps the relay to one
 * request per pause instead of a batch per poll. Used by one relay thread at a time.
 */
final class OutageBreaker {
  private final Clock clock;
  private final Backoff pauses;
  private int trips;
  private Instant openUntil;
  private Instant outageStart;
  private String outageReason;

  /**
   * @param clock the relay's clock
   * @param pauses pause lengths by number of consecutive trips
   */
  public OutageBreaker(Clock clock, Backoff pauses) {
    this.clock = clock;
    this.pauses = pauses;
  }

  /** Time left before the next probe, or zero if claiming is allowed now. */
  public synchronized Duration pauseLeft() {
    if (openUntil == null) {
      return Duration.ZERO;
    }
    Duration left = Duration.between(clock.instant(), openUntil);
    return left.isNegative() ? Duration.ZERO : left;
  }

  /** True after a trip, until a probe succeeds: claim one event only. */
  public synchronized boolean probing() {
    return trips > 0;
  }

  /**
   * Records an outage and opens the breaker.
   *
   * @return how long the relay now pauses
   */
  public synchronized Duration trip() {
    return trip(null);
  }

  /**
   * Records an outage and opens the breaker.
   *
   * @param reason the transport's reason, kept for the relay's health
   * @return how long the relay now pauses
   */
  public synchronized Duration trip(String reason) {
    if (trips == 0) {
      outageStart = clock.instant();
    }
    outageReason = reason;
    trips++;
    // At least a tenth of the cap, so a jitter draw near zero does not turn into a hot loop.
    Duration cap = pauses.cap(trips);
    Duration pause = pauses.delay(trips);
    if (pause.compareTo(cap.dividedBy(10)) < 0) {
      pause = cap.dividedBy(10);
    }
    openUntil = clock.instant().plus(pause);
    return pause;
  }

  /**
   * Records that the transport answered; closes the breaker.
   *
   * @return how long the outage lasted, or null if there was none
   */
  public synchronized Duration recovered() {
    if (trips == 0) {
      return null;
    }
    Duration outage = Duration.between(outageStart, clock.instant());
    trips = 0;
    openUntil = null;
    outageStart = null;
    outageReason = null;
    return outage;
  }

  /** {@return when the outage going on began, or null if there is none} */
  public synchronized Instant outageStart() {
    return outageStart;
  }

  /** {@return the transport's last reason in the outage going on, or null} */
  public synchronized String outageReason() {
    return outageReason;
  }
}
