package dev.outboxkit.http.internal;

import dev.outboxkit.SendResult;
import java.time.Duration;

/** How one request went: its result, and what it says about its endpoint. */
final class RequestOutcome {
  /** The event's result. */
  public final SendResult result;

  /** The request reached the endpoint (or failed on the way to it). */
  public final boolean sent;

  /** The failure is the endpoint's (down, failing), not the event's. */
  public final boolean outage;

  /** How long the endpoint asked to be left alone, or null. */
  public final Duration retryAfter;

  private RequestOutcome(SendResult result, boolean sent, boolean outage, Duration retryAfter) {
    this.result = result;
    this.sent = sent;
    this.outage = outage;
    this.retryAfter = retryAfter;
  }

  /** The endpoint answered: it is up, whatever it said. */
  public static RequestOutcome answered(SendResult result) {
    return new RequestOutcome(result, true, false, null);
  }

  /** The endpoint is down or failing, as far as this request tells. */
  public static RequestOutcome outage(SendResult result, Duration retryAfter) {
    return new RequestOutcome(result, true, true, retryAfter);
  }

  /** No request left: the event cannot be sent (or the send was interrupted first). */
  public static RequestOutcome notSent(SendResult result) {
    return new RequestOutcome(result, false, false, null);
  }
}
