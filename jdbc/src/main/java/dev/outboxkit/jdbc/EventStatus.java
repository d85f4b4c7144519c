package dev.outboxkit.jdbc;

/** The life cycle of an outbox row, as stored in its {@code status} column. */
public enum EventStatus {
  /** Waiting to be claimed (new, retrying, or handed back). */
  PENDING,
  /** Claimed by a relay that holds a lease on it. */
  IN_FLIGHT,
  /** Confirmed by the broker. Kept until purged, unless the relay deletes on publish. */
  PUBLISHED,
  /** Quarantined after a permanent failure or a spent attempt budget; see {@link OutboxAdmin}. */
  DEAD,
  /** Passed its {@code expires_at} before it could be sent; never sent. */
  EXPIRED,
  /**
   * Withdrawn before it was sent, by the application ({@link Outbox#cancel}) or an operator ({@link
   * OutboxAdmin#cancel}); never sent, and in ordered mode no longer holds its aggregate back. The
   * reason is kept in {@code last_error}.
   */
  CANCELLED,
  /**
   * Withdrawn by a later event of its aggregate with the same supersede key ({@link
   * dev.outboxkit.OutboxEvent.Builder#supersedeKey}); never sent.
   */
  SUPERSEDED;

  /**
   * {@return whether a row in this status has finished for good} PUBLISHED, EXPIRED, CANCELLED and
   * SUPERSEDED rows never change status again; retention purges them.
   */
  public boolean isFinal() {
    return this == PUBLISHED || this == EXPIRED || this == CANCELLED || this == SUPERSEDED;
  }
}
