package dev.outboxkit.jdbc.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.DoubleSupplier;

/**
 * Outages of single destinations, as a transport reports them with {@code
 * SendResult.unavailable(reason, scope)}: one webhook endpoint down while the others answer. The
 * relay does not pause for them; it holds back only the events that got such an answer, uncharged,
 * by moving their {@code available_at} (one hold per destination and round, one statement). Per
 * destination the hold grows with each round that meets it down, from the outage backoff's first
 * pause to its longest, so a destination that stays down costs a few re-sends per pause (which a
 * transport with a circuit breaker answers without a request), never a hot loop, and never a wait
 * for the other destinations.
 *
 * <p>A destination not met down for twice its current pause starts over. At most {@link
 * #MAX_DESTINATIONS} are remembered (the least recently met go first). Shared by the relay's
 * threads.
 */
final class DestinationOutages {
  static final int MAX_DESTINATIONS = 10_000;

  private final Clock clock;
  private final Backoff pauses;
  private final DoubleSupplier random;
  private final Map<String, State> down =
      new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, State> eldest) {
          return size() > MAX_DESTINATIONS;
        }
      };

  private static final class State {
    int rounds;
    Instant since;
    Instant lastMet;
  }

  /**
   * @param clock the relay's clock
   * @param pauses the outage backoff: caps by the number of rounds a destination was met down
   * @param random uniform values in [0, 1), for the jitter of each event's hold
   */
  public DestinationOutages(Clock clock, Backoff pauses, DoubleSupplier random) {
    this.clock = clock;
    this.pauses = pauses;
    this.random = random;
  }

  /** One round met the destination down: its outage goes on (or starts) and its pause grows. */
  synchronized Trip trip(String scope) {
    Instant now = clock.instant();
    State s = down.get(scope);
    boolean started =
        s == null || now.isAfter(s.lastMet.plus(pauses.cap(s.rounds).multipliedBy(2)));
    if (started) {
      s = new State();
      s.since = now;
      down.put(scope, s);
    }
    s.rounds++;
    s.lastMet = now;
    return new Trip(pauses.cap(s.rounds), s.since, started);
  }

  /** How one round's answer about a destination is handled. */
  final class Trip {
    /** The longest hold of this round's events for that destination. */
    final Duration cap;

    /**
     * The hold of this round's events for that destination: between half the cap and the cap, so
     * that relays and rounds meeting it down come back spread out, but none so soon that the
     * destination is hammered.
     */
    final Duration hold;

    /** When this relay first met the outage. */
    final Instant since;

    /** True when this round is the first to meet the destination down (worth a WARN). */
    final boolean started;

    Trip(Duration cap, Instant since, boolean started) {
      this.cap = cap;
      this.since = since;
      this.hold = cap.dividedBy(2).plusNanos((long) (cap.toNanos() / 2.0 * random.getAsDouble()));
      this.started = started;
    }
  }
}
