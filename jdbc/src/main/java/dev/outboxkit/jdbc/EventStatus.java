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
  EXPIRED
}
