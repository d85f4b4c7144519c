package dev.outboxkit.jdbc;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * A quarantined event as listed by {@link OutboxAdmin#listDead}: who it is, where it was going,
 * when and why it failed, without its payload.
 */
public final class DeadEvent {
  private final long seq;
  private final UUID id;
  private final String aggregateType;
  private final String aggregateId;
  private final String eventType;
  private final int attempts;
  private final int uncertainSends;
  private final String lastError;
  private final Instant occurredAt;
  private final String destination;
  private final Instant diedAt;

  DeadEvent(
      long seq,
      UUID id,
      String aggregateType,
      String aggregateId,
      String eventType,
      int attempts,
      int uncertainSends,
      String lastError,
      Instant occurredAt,
      String destination,
      Instant diedAt) {
    this.seq = seq;
    this.id = id;
    this.aggregateType = aggregateType;
    this.aggregateId = aggregateId;
    this.eventType = eventType;
    this.attempts = attempts;
    this.uncertainSends = uncertainSends;
    this.lastError = lastError;
    this.occurredAt = occurredAt;
    this.destination = destination;
    this.diedAt = diedAt;
  }

  /**
   * {@return the position in the table} Pass the last one seen to {@link OutboxAdmin#listDead} for
   * the next page: keyset paging stays cheap however many DEAD rows there are.
   */
  public long seq() {
    return seq;
  }

  /** {@return the event id, as delivered in every attempt} */
  public UUID id() {
    return id;
  }

  /** {@return the aggregate type} */
  public String aggregateType() {
    return aggregateType;
  }

  /**
   * {@return the aggregate id} In ordered mode, this aggregate's later events wait until this one
   * is replayed or discarded.
   */
  public String aggregateId() {
    return aggregateId;
  }

  /** {@return the event type} */
  public String eventType() {
    return eventType;
  }

  /** {@return how many delivery attempts were charged before it was quarantined} */
  public int attempts() {
    return attempts;
  }

  /**
   * {@return how many of its sends ended without an answer, so may have reached the destination}
   * Above 0, check the destination before a replay: the event may already be there.
   */
  public int uncertainSends() {
    return uncertainSends;
  }

  /** {@return why it was quarantined: the transport's reason, never the payload} */
  public String lastError() {
    return lastError;
  }

  /** {@return when the event happened} */
  public Instant occurredAt() {
    return occurredAt;
  }

  /** {@return the destination, or empty for the transport's default} */
  public Optional<String> destination() {
    return Optional.ofNullable(destination);
  }

  /** {@return when it was quarantined, by the database clock} */
  public Instant diedAt() {
    return diedAt;
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
        + (uncertainSends == 0 ? "" : ", uncertainSends=" + uncertainSends)
        + ", lastError="
        + lastError
        + "]";
  }
}
