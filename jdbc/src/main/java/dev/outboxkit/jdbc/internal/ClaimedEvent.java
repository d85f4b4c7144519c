package dev.outboxkit.jdbc.internal;

import dev.outboxkit.OutboxEvent;

/**
 * A row the relay holds a lease on: its sequence number, which attempt this is, whether it had
 * already expired when claimed (by the database clock), and the event — or, for a row that does not
 * decode into a valid event, the reason.
 */
public final class ClaimedEvent {
  private final long seq;
  private final int attempt;
  private final boolean expired;
  private final OutboxEvent event;
  private final String unreadable;

  private ClaimedEvent(
      long seq, int attempt, boolean expired, OutboxEvent event, String unreadable) {
    this.seq = seq;
    this.attempt = attempt;
    this.expired = expired;
    this.event = event;
    this.unreadable = unreadable;
  }

  static ClaimedEvent of(long seq, int attempt, boolean expired, OutboxEvent event) {
    return new ClaimedEvent(seq, attempt, expired, event, null);
  }

  static ClaimedEvent unreadable(long seq, int attempt, String reason) {
    return new ClaimedEvent(seq, attempt, false, null, reason);
  }

  /** The row's sequence number. */
  public long seq() {
    return seq;
  }

  /** Which attempt this is: 1 on the first claim. */
  public int attempt() {
    return attempt;
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
