package dev.outboxkit.jdbc.internal;

import dev.outboxkit.OutboxEvent;

/**
 * A row the relay holds a lease on: its sequence number, which attempt this is, whether it had
 * already expired when claimed (by the database clock), and the event — or, for a row that does not
 * decode into a valid event, the reason.
 */
final class ClaimedEvent {
  private final long seq;
  private final int attempt;
  private final int uncertainSends;
  private final boolean expired;
  private final String aggregateType;
  private final String aggregateId;
  private final String aggregate;
  private final OutboxEvent event;
  private final String unreadable;

  private ClaimedEvent(
      long seq,
      int attempt,
      int uncertainSends,
      boolean expired,
      String aggregateType,
      String aggregateId,
      OutboxEvent event,
      String unreadable) {
    this.seq = seq;
    this.attempt = attempt;
    this.uncertainSends = uncertainSends;
    this.expired = expired;
    this.aggregateType = aggregateType;
    this.aggregateId = aggregateId;
    this.aggregate = aggregateKey(aggregateType, aggregateId);
    this.event = event;
    this.unreadable = unreadable;
  }

  static ClaimedEvent of(long seq, int attempt, boolean expired, OutboxEvent event) {
    return of(seq, attempt, 0, expired, event);
  }

  /**
   * @param uncertainSends the earlier sends of the event whose outcome was unknown
   */
  static ClaimedEvent of(
      long seq, int attempt, int uncertainSends, boolean expired, OutboxEvent event) {
    return new ClaimedEvent(
        seq,
        attempt,
        uncertainSends,
        expired,
        event.aggregateType(),
        event.aggregateId(),
        event,
        null);
  }

  /**
   * A row that does not decode into an event.
   *
   * @param aggregateType its aggregate type column, as stored
   * @param aggregateId its aggregate id column, as stored
   */
  static ClaimedEvent unreadable(
      long seq, int attempt, String aggregateType, String aggregateId, String reason) {
    return new ClaimedEvent(seq, attempt, 0, false, aggregateType, aggregateId, null, reason);
  }

  /** The key that tells aggregates apart: type and id, which neither can forge in the other. */
  static String aggregateKey(String aggregateType, String aggregateId) {
    return aggregateType + '\u0000' + aggregateId;
  }

  /** The row's aggregate type, as stored; known also for an unreadable row. */
  public String aggregateType() {
    return aggregateType;
  }

  /** The row's aggregate id, as stored; known also for an unreadable row. */
  public String aggregateId() {
    return aggregateId;
  }

  /** The row's aggregate, as {@link #aggregateKey}; known also for an unreadable row. */
  public String aggregate() {
    return aggregate;
  }

  /** The row's sequence number. */
  public long seq() {
    return seq;
  }

  /** Which attempt this is: 1 on the first claim. */
  public int attempt() {
    return attempt;
  }

  /** The earlier sends of the event whose outcome was unknown (they may have arrived). */
  public int uncertainSends() {
    return uncertainSends;
  }

  /** True if {@code expires_at} had passed when the row was claimed. */
  public boolean expired() {
    return expired;
  }

  /** The event, or null if the row is unreadable. */
  public OutboxEvent event() {
    return event;
  }

  /** Why the row could not be decoded, or null. */
  public String unreadable() {
    return unreadable;
  }
}
