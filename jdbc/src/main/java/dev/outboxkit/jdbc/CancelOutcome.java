package dev.outboxkit.jdbc;

import dev.outboxkit.Failures;

/**
 * What a cancel found: whether the event was withdrawn, and if not, why. See {@link
 * OutboxWriter#cancel(java.sql.Connection, java.util.UUID)} and {@link OutboxAdmin#cancel}.
 */
public enum CancelOutcome {
  /** The event was waiting (PENDING or DEAD) and is now CANCELLED: it will never be sent. */
  CANCELLED,
  /**
   * A relay holds the event and may be sending it right now, so it was left alone; it may still be
   * delivered. Call again later (in a new transaction) if it comes back to PENDING after a failed
   * send.
   */
  IN_FLIGHT,
  /** The event was already delivered (PUBLISHED); nothing to withdraw. */
  ALREADY_SENT,
  /**
   * The event had already ended without being sent (EXPIRED, CANCELLED or SUPERSEDED); nothing
   * changed.
   */
  ALREADY_FINISHED,
  /**
   * This table holds no event with this id: a wrong id, another outbox table, or one deleted on
   * publish or purged by retention.
   */
  NOT_FOUND;

  /** The one check of a cancel's reason, which is stored in the event's {@code last_error}. */
  static String checkReason(String reason) {
    if (reason == null || reason.isBlank()) {
      throw new IllegalArgumentException(
          "reason must be given (it is stored with the cancelled event), was '" + reason + "'");
    }
    if (reason.length() > Failures.MAX_REASON_LENGTH) {
      throw new IllegalArgumentException(
          "reason is "
              + reason.length()
              + " characters long; the limit is "
              + Failures.MAX_REASON_LENGTH
              + ": shorten it");
    }
    return reason;
  }
}
