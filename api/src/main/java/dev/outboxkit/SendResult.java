package dev.outboxkit;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link Transport} made of one message. Immutable.
 *
 * <ul>
 *   <li>{@link #delivered()}: the broker or endpoint confirmed it; the event is done.
 *   <li>{@link #retry(String, Duration)}: this event failed in a way that may pass; try it again
 *       later. Counts against the event's attempt budget.
 *   <li>{@link #uncertain(String)}: the request left but its answer never came (a read timeout, a
 *       connection cut after the write), so it may have arrived. Retried like a retry, and counted
 *       apart as an uncertain send, for operators to see and reconcile.
 *   <li>{@link #reject(String)}: this event can never be delivered as it is (too large, refused by
 *       the endpoint); quarantine it as DEAD with the reason, for an operator to replay or discard.
 *   <li>{@link #unavailable(String)}: the transport as a whole is down (broker unreachable). The
 *       event's attempt is not charged; the relay backs off and tries again later.
 *   <li>{@link #unavailable(String, String)}: one destination is down (one webhook endpoint, one
 *       topic), the others are not. Nothing is charged; the relay holds back only the events that
 *       got this answer, for a pause that grows while that destination stays down, and goes on with
 *       the rest.
 * </ul>
 */
public final class SendResult {

  /** The kind of outcome. */
  public enum Status {
    /** Confirmed by the broker or endpoint. */
    DELIVERED,
    /** Event-specific failure that may pass; charged against the attempt budget. */
    RETRY,
    /** Event-specific permanent failure; the event is quarantined. */
    REJECT,
    /**
     * An outage, of the whole transport or of one destination ({@link #scope()}); nothing charged.
     */
    UNAVAILABLE
  }

  private static final SendResult DELIVERED =
      new SendResult(Status.DELIVERED, null, null, null, false);

  private final Status status;
  private final String reason;
  private final Duration retryAfter;
  private final String scope;
  private final boolean uncertain;

  private SendResult(
      Status status, String reason, Duration retryAfter, String scope, boolean uncertain) {
    this.status = status;
    this.reason = reason;
    this.retryAfter = retryAfter;
    this.scope = scope;
    this.uncertain = uncertain;
  }

  /** {@return the outcome for a message the broker or endpoint confirmed} */
  public static SendResult delivered() {
    return DELIVERED;
  }

  /**
   * This event failed in a way that may pass.
   *
   * @param reason why, for the event's {@code last_error}; must not contain payload or secrets
   * @param after how long to wait before the next attempt (e.g. from a {@code Retry-After} header),
   *     or null to let the relay's backoff decide
   * @return a retry outcome, charged against the event's attempt budget
   */
  public static SendResult retry(String reason, Duration after) {
    if (after != null && after.isNegative()) {
      throw new IllegalArgumentException("retry delay must not be negative, was " + after);
    }
    return new SendResult(Status.RETRY, requireReason(reason), after, null, false);
  }

  /**
   * The request for this event left, but no answer came: it may have reached the destination or not
   * (a timeout while waiting for the response, a connection cut after the request was written).
   * Answer {@link #retry} instead when the request surely did not leave (a refused connection).
   *
   * <p>The relay retries it like {@code retry(reason, null)}, with the same event id, charged
   * against the attempt budget, and counts it in the row's {@code uncertain_sends}, in {@code
   * RelayListener.uncertain} and in the metrics, so operators see how often it happens and which
   * events to reconcile. A transport that can look an event up at its destination ({@link
   * Transport#confirmsDelivery()}) is asked before such an event is sent again.
   *
   * @param reason what happened, for the event's {@code last_error}; no payload, no secrets
   * @return a retry outcome whose {@link #isUncertain()} is true
   */
  public static SendResult uncertain(String reason) {
    return new SendResult(Status.RETRY, requireReason(reason), null, null, true);
  }

  /**
   * This event can never be delivered as it is; quarantine it.
   *
   * @param reason why, recorded as the event's {@code last_error}; no payload, no secrets
   * @return a reject outcome: the event goes to DEAD at once, whatever its remaining attempts
   */
  public static SendResult reject(String reason) {
    return new SendResult(Status.REJECT, requireReason(reason), null, null, false);
  }

  /**
   * The transport as a whole cannot deliver now; the attempt is not charged.
   *
   * @param reason why, for logs; no secrets
   * @return an unavailable outcome: the relay backs off and the event keeps its attempt budget
   */
  public static SendResult unavailable(String reason) {
    return new SendResult(Status.UNAVAILABLE, requireReason(reason), null, null, false);
  }

  /**
   * One destination of the transport cannot take events now; the others can. The attempt is not
   * charged, and only this event is held back (with every other event answered for the same scope),
   * so one tenant's dead endpoint never stops another tenant's events.
   *
   * @param reason why, for logs; no secrets
   * @param scope what is down, the same text for every event it concerns, e.g. {@code "webhook
   *     endpoint https://a.example/hooks"} or {@code "kafka topic orders"}; no secrets (it is
   *     logged)
   * @return an unavailable outcome about that destination
   */
  public static SendResult unavailable(String reason, String scope) {
    Objects.requireNonNull(scope, "scope");
    if (scope.isBlank()) {
      throw new IllegalArgumentException(
          "scope must not be blank; use unavailable(reason) for an"
              + " outage of the whole transport");
    }
    return new SendResult(Status.UNAVAILABLE, requireReason(reason), null, scope, false);
  }

  private static String requireReason(String reason) {
    Objects.requireNonNull(reason, "reason");
    return reason.isBlank() ? "(no reason given)" : reason;
  }

  /** {@return the kind of outcome} */
  public Status status() {
    return status;
  }

  /** {@return true for {@link Status#DELIVERED}} */
  public boolean isDelivered() {
    return status == Status.DELIVERED;
  }

  /** {@return true for a retry whose request may have arrived (see {@link #uncertain(String)})} */
  public boolean isUncertain() {
    return uncertain;
  }

  /** {@return why it failed; empty when delivered} */
  public Optional<String> reason() {
    return Optional.ofNullable(reason);
  }

  /** {@return the delay the transport asked for before the next attempt, if any (retry only)} */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }

  /**
   * {@return the destination an unavailable outcome is about; empty for an outage of the whole
   * transport, and for every other outcome}
   */
  public Optional<String> scope() {
    return Optional.ofNullable(scope);
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof SendResult)) {
      return false;
    }
    SendResult r = (SendResult) o;
    return status == r.status
        && Objects.equals(reason, r.reason)
        && Objects.equals(retryAfter, r.retryAfter)
        && Objects.equals(scope, r.scope)
        && uncertain == r.uncertain;
  }

  @Override
  public int hashCode() {
    return Objects.hash(status, reason, retryAfter, scope, uncertain);
  }

  @Override
  public String toString() {
    return reason == null
        ? status.name()
        : status
            + (uncertain ? "(uncertain, " : "(")
            + reason
            + (retryAfter == null ? "" : ", after " + retryAfter)
            + (scope == null ? "" : ", scope " + scope)
            + ")";
  }
}
