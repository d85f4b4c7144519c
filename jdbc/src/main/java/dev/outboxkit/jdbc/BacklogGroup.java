package dev.outboxkit.jdbc;

import java.time.Instant;
import java.util.Optional;

/**
 * Live events (PENDING or IN_FLIGHT) of one destination, event type, tenant and status, as read by
 * {@link OutboxAdmin#backlog}. Immutable.
 */
public final class BacklogGroup {
  private final String destination;
  private final String eventType;
  private final String tenant;
  private final EventStatus status;
  private final long events;
  private final long notDue;
  private final Instant oldestOccurredAt;

  BacklogGroup(
      String destination,
      String eventType,
      String tenant,
      EventStatus status,
      long events,
      long notDue,
      Instant oldestOccurredAt) {
    this.destination = destination;
    this.eventType = eventType;
    this.tenant = tenant;
    this.status = status;
    this.events = events;
    this.notDue = notDue;
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

  /** {@return PENDING or IN_FLIGHT} */
  public EventStatus status() {
    return status;
  }

  /** {@return how many events the group has} */
  public long events() {
    return events;
  }

  /** {@return how many of them may not be claimed yet (retrying, held, or scheduled later)} */
  public long notDue() {
    return notDue;
  }

  /** {@return when the group's oldest event occurred} */
  public Instant oldestOccurredAt() {
    return oldestOccurredAt;
  }
}
