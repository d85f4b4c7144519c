package dev.outboxkit.jdbc;

import java.time.Instant;
import java.util.UUID;

/**
 * A quarantined event as listed by {@link OutboxAdmin#listDead}: who it is and why it failed,
 * without its payload.
 */
public final class DeadEvent {
  private final long seq;
  private final UUID id;
  private final String aggregateType;
  private final String aggregateId;
  private final String eventType;
  private final int attempts;
  private final String lastError;
  private final Instant occurredAt;

  DeadEvent(
      long seq,
      UUID id,
      String aggregateType,
      String aggregateId,
      String eventType,
      int attempts,
      String lastError,
      Instant occurredAt) {
    this.seq = seq;
    this.id = id;
    this.aggregateType = aggregateType;
    this.aggregateId = aggregateId;
    this.eventType = eventType;
    this.attempts = attempts;
    this.lastError = lastError;
    this.occurredAt = occurredAt;
  }

  /**
   * Position in the table; pass the last one seen to {@link OutboxAdmin#listDead} for the next
   * page.
   */
  public long seq() {
    return seq;
  }

  /** The event id. */
  public UUID id() {
    return id;
  }

  /** The aggregate type. */
  public String aggregateType() {
    return aggregateType;
  }

  /** The aggregate id. */
  public String aggregateId() {
    return aggregateId;
  }

  /** The event type. */
  public String eventType() {
    return eventType;
  }

  /** Attempts made. */
  public int attempts() {
    return attempts;
  }

  /** Why it was quarantined. */
  public String lastError() {
    return lastError;
  }

  /** When the event happened. */
  public Instant occurredAt() {
    return occurredAt;
  }

  @Override
  public String toString() {
    return "DeadEvent[id="
        + id
        + ", aggregate="
        + aggregateType
        + "/"
        + aggregateId
        + ", type="
        + eventType
        + ", attempts="
        + attempts
        + ", lastError="
        + lastError
        + "]";
  }
}
