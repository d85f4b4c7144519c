package dev.outboxkit.http.internal;

import java.time.Instant;

/**
 * The circuit breaker of one endpoint: closed (send), open (answer "unavailable" without sending
 * until a deadline), then half-open (let exactly one caller probe with one request). Thread-safe;
 * several relays may share a transport.
 */
final class CircuitBreaker {

  /** What a caller may do with the endpoint now. */
  public enum Admission {
    /** Send normally. */
    CLOSED,
    /** Send one request first; its outcome closes or re-opens the breaker. */
    PROBE,
    /** Do not send. */
    OPEN
  }

  private boolean open;
  private boolean probing;
  private Instant openUntil = Instant.MIN;
  private String lastFailure = "";

  /** A closed breaker. */
  public CircuitBreaker() {}

  /**
   * Asks to use the endpoint. A caller that receives {@link Admission#PROBE} must report back with
   * {@link #recordOutage}, {@link #recordResponsive} or {@link #releaseProbe}.
   *
   * @param now the current time
   * @return what the caller may do
   */
  public synchronized Admission admit(Instant now) {
    if (!open) {
      return Admission.CLOSED;
    }
    if (now.isBefore(openUntil) || probing) {
      return Admission.OPEN;
    }
    probing = true;
    return Admission.PROBE;
  }

  /**
   * Every request sent to the endpoint failed in a way that says it is down: open until {@code
   * until}.
   *
   * @param until when the next probe may go out
   * @param reason the last failure, for "unavailable" answers while open
   * @return true if the breaker was closed before (worth a log line)
   */
  public synchronized boolean recordOutage(Instant until, String reason) {
    boolean wasClosed = !open;
    open = true;
    probing = false;
    openUntil = until;
    lastFailure = reason;
    return wasClosed;
  }

  /**
   * The endpoint answered (whatever the status): close.
   *
   * @return true if the breaker was open before (worth a log line)
   */
  public synchronized boolean recordResponsive() {
    boolean wasOpen = open;
    open = false;
    probing = false;
    return wasOpen;
  }

  /** The probe was granted but nothing was sent; let the next caller probe. */
  public synchronized void releaseProbe() {
    probing = false;
  }

  /** When the next probe may go out (meaningful while open). */
  public synchronized Instant openUntil() {
    return openUntil;
  }

  /** The failure that opened the breaker, for "unavailable" reasons. */
  public synchronized String lastFailure() {
    return lastFailure;
  }

  /** Whether the breaker is open or half-open. */
  public synchronized boolean isOpen() {
    return open;
  }
}
