package dev.outboxkit.http;

/**
 * How {@link WebhookTransport} reads the HTTP status of an endpoint's answer. The default, {@link
 * #STANDARD}, is what Standard Webhooks senders do: only 2xx is success, every other answer is
 * retried with backoff, an endpoint that refuses the sender's credentials is that endpoint's outage
 * (nothing charged, its events held back while the other endpoints' flow), and only 410 Gone stops
 * delivery. Pass another to {@link WebhookTransport.Builder#statusPolicy} when a receiver means
 * something else by a status, e.g. a 422 that will never pass:
 *
 * <pre>{@code
 * WebhookStatusPolicy policy =
 *     status -> status == 422 ? Verdict.REJECT : WebhookStatusPolicy.STANDARD.classify(status);
 * }</pre>
 *
 * <p>Whatever the verdict, a {@code Retry-After} header on a failed answer is honoured (capped by
 * {@link WebhookTransport.Builder#maxRetryAfter}), and redirects are never followed.
 */
@FunctionalInterface
public interface WebhookStatusPolicy {

  /** What an answer means for its event and for its endpoint. */
  enum Verdict {
    /** Confirmed: the event is published. */
    DELIVERED,

    /** This event failed: retried with backoff, one attempt charged. */
    RETRY,

    /**
     * The endpoint is failing (a 5xx, a 404 while a route moves): retried, one attempt charged —
     * but when every request of a batch to that endpoint fails so, it is the endpoint's outage
     * instead: nothing charged, its events held back, its circuit opens.
     */
    ENDPOINT_FAILING,

    /**
     * The endpoint refuses the sender (401, 403: an expired or rotated credential): the endpoint's
     * outage whatever the other requests did. Nothing charged, its events held back until it
     * accepts again, its circuit opens.
     */
    ENDPOINT_DOWN,

    /** Refused for good (410 Gone): the event is quarantined as DEAD at once. */
    REJECT
  }

  /**
   * Standard Webhooks senders' policy: 2xx delivered; 410 rejected; 401 and 403 the endpoint's
   * outage; 404, 5xx (503 included) failures of the endpoint; every other status a retry.
   */
  WebhookStatusPolicy STANDARD =
      status -> {
        if (status >= 200 && status < 300) {
          return Verdict.DELIVERED;
        }
        if (status == 410) {
          return Verdict.REJECT;
        }
        if (status == 401 || status == 403) {
          return Verdict.ENDPOINT_DOWN;
        }
        if (status == 404 || (status >= 500 && status < 600)) {
          return Verdict.ENDPOINT_FAILING;
        }
        return Verdict.RETRY;
      };

  /**
   * Reads one status.
   *
   * @param status the HTTP status code of the answer
   * @return the verdict; never null
   */
  Verdict classify(int status);
}
