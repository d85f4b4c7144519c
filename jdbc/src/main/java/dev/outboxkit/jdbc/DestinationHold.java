package dev.outboxkit.jdbc;

import java.time.Instant;
import java.util.Optional;

/**
 * A destination that answered a relay that it was down, whose events are held back until it may be
 * up again, as read by {@link OutboxAdmin#heldDestinations}. Immutable.
 */
public final class DestinationHold {
  private final String destination;
  private final long events;
  private final Instant since;
  private final Instant heldUntil;

  DestinationHold(String destination, long events, Instant since, Instant heldUntil) {
    this.destination = destination;
    this.events = events;
    this.since = since;
    this.heldUntil = heldUntil;
  }

  /** {@return the destination, or empty for the transport's default} */
  public Optional<String> destination() {
    return Optional.ofNullable(destination);
  }

  /** {@return how many events are held back} */
  public long events() {
    return events;
  }

  /**
   * {@return when a relay first met this outage, if the holding relay recorded it (relays of this
   * version do)}
   */
  public Optional<Instant> since() {
    return Optional.ofNullable(since);
  }

  /** {@return the latest time until which one of its events is held} */
  public Instant heldUntil() {
    return heldUntil;
  }
}
