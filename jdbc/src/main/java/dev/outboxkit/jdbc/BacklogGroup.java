package dev.outboxkit.jdbc;

import java.time.Instant;
import java.util.Optional;

/**
 * PENDING events of one destination, event type and tenant, as read by {@link OutboxAdmin#backlog}.
 * Immutable.
 */
public final class BacklogGroup {
  private final String destination;
  private final String eventType;
  private final String tenant;
  private final long events;
  private final long notDue;
  private final long held;
  private final Instant heldSince;
  private final Instant heldUntil;
  private final Instant oldestOccurredAt;

  BacklogGroup(
      String destination,
      String eventType,
      String tenant,
      long events,
      long notDue,
      long held,
      Instant heldSince,
      Instant heldUntil,
      Instant oldestOccurredAt) {
    this.destination = destination;
    this.eventType = eventType;
    this.tenant = tenant;
    this.events = events;
    this.notDue = notDue;
    this.held = held;
    this.heldSince = heldSince;
    this.heldUntil = heldUntil;
    this.oldestOccurredAt = oldestOccurredAt;
  }

  /** {@return the destination, or empty for the transport's default} */
  public Optional<String> destination() {
    return Optional.ofNullable(destination);
  }

  /** {@return the event type} */
  public String eventType() {
    return eventType;
  }

  /** {@return the tenant, or empty for events without one} */
  public Optional<String> tenant() {
    return Optional.ofNullable(tenant);
  }

  /** {@return how many events the group has} */
  public long events() {
    return events;
  }

  /** {@return how many of them may not be claimed yet (retrying, held, or scheduled later)} */
  public long notDue() {
    return notDue;
  }

  /**
   * {@return how many of them a relay held back because their destination answered that it was
   * down} They are sent again, uncharged, when the hold ends.
   */
  public long held() {
    return held;
  }

  /** {@return when a relay first met the destination of the held events down, if any are held} */
  public Optional<Instant> heldSince() {
    return Optional.ofNullable(heldSince);
  }

  /** {@return the latest end of the held events' holds, if any are held} */
  public Optional<Instant> heldUntil() {
    return Optional.ofNullable(heldUntil);
  }

  /** {@return when the group's oldest event occurred} */
  public Instant oldestOccurredAt() {
    return oldestOccurredAt;
  }
}
