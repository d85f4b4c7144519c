/**
 * Signed HTTP webhooks following the <a href="https://www.standardwebhooks.com/">Standard
 * Webhooks</a> specification.
 *
 * <ul>
 *   <li>{@link dev.outboxkit.http.WebhookTransport}: publishes events as signed POST requests, with
 *       per-endpoint routing, circuit breaking and address checks.
 *   <li>{@link dev.outboxkit.http.WebhookSigner}: computes {@code webhook-signature} on its own.
 *   <li>{@link dev.outboxkit.http.WebhookVerifier}: checks signature and timestamp on the receiving
 *       side.
 *   <li>{@link dev.outboxkit.http.WebhookHeaders}: the header names used.
 * </ul>
 *
 * <h2>How {@code WebhookTransport} delivers</h2>
 *
 * <h3>Outcome</h3>
 *
 * <p>Statuses are read by the {@link WebhookStatusPolicy} ({@link
 * WebhookTransport.Builder#statusPolicy}); the table shows {@link WebhookStatusPolicy#STANDARD},
 * what Standard Webhooks senders do.
 *
 * <table>
 *   <caption>How an answer becomes a {@link dev.outboxkit.SendResult}</caption>
 *   <tr><th>answer</th><th>result</th></tr>
 *   <tr><td>2xx</td><td>delivered</td></tr>
 *   <tr><td>401, 403 (credentials refused)</td><td>the endpoint's outage: unavailable for that
 *       endpoint (nothing charged, its events held back, the others flow), its circuit opens</td></tr>
 *   <tr><td>404, 5xx (503 included)</td><td>retry; counts as an outage: when every request of
 *       the batch to that endpoint failed so, unavailable for that endpoint</td></tr>
 *   <tr><td>410 Gone</td><td>reject</td></tr>
 *   <tr><td>every other status: 3xx (never followed), 408, 429, other 4xx</td><td>retry</td></tr>
 *   <tr><td>any failed answer with {@code Retry-After}</td><td>the delay it asks for (seconds or
 *       HTTP date, capped by {@link WebhookTransport.Builder#maxRetryAfter})</td></tr>
 *   <tr><td>connect error, timeout, I/O error, unresolvable host</td><td>retry; counts as an
 *       outage</td></tr>
 *   <tr><td>a routed endpoint's scheme refused (plain http)</td><td>reject</td></tr>
 *   <tr><td>its host resolves to a refused address (private, loopback, metadata …)</td><td>the
 *       endpoint's outage: unavailable for that endpoint, no request, nothing charged; logged at
 *       ERROR once until the check passes, checked again whenever the relay retries</td></tr>
 *   <tr><td>router returned null</td><td>reject</td></tr>
 *   <tr><td>router threw</td><td>retry</td></tr>
 *   <tr><td>the calling thread is interrupted</td><td>events the endpoint already answered keep
 *       their result (2xx: delivered); every other event is unavailable, "not confirmed:
 *       interrupted …" (no attempt charged). No new request starts, the requests in flight are
 *       abandoned and the call returns at once with the interrupt flag set; see
 *       below</td></tr>
 * </table>
 *
 * <h3>Interrupts</h3>
 *
 * <p>When the thread in {@link WebhookTransport#sendBatch} is interrupted (a relay that gave up on
 * the batch, or is stopping), no further request is started, the requests in flight are cancelled
 * (their worker threads are interrupted) and the call returns at once, without waiting for them,
 * with the interrupt flag set again. Events whose request was answered before keep that answer's
 * result, so those answered 2xx stay delivered. Every other event is {@link
 * dev.outboxkit.SendResult#unavailable(String) unavailable} (no attempt charged): "not confirmed:
 * interrupted before &lt;endpoint&gt; answered" for a request that was in flight, which the
 * endpoint may still have received and processed (receivers deduplicate on {@code webhook-id}), and
 * "not confirmed: interrupted before it was sent" for the rest. Half a batch says nothing about an
 * endpoint, so no circuit breaker changes state. An interrupt that comes before the requests start
 * (during routing or the address check, which waits for DNS without being interruptible) sends
 * nothing at all.
 *
 * <h3>Per-endpoint circuit breaker</h3>
 *
 * <p>When every request of a batch to one endpoint fails as an outage, all of that endpoint's
 * events in the batch are answered {@link dev.outboxkit.SendResult#unavailable(String, String)}
 * with the scope {@code "webhook endpoint <url>"} (no attempt charged; the relay holds back that
 * endpoint's events only and goes on with the others) and the breaker opens for {@link
 * WebhookTransport.Builder#circuitOpenDuration} (longer if a 503 asked for it). While open, its
 * events are answered unavailable without a request. Then one request probes; if the endpoint
 * answers at all, it closes. Other endpoints are unaffected. Within a batch, once an endpoint has
 * failed as an outage and never answered, no new request is started to it until those in flight
 * complete, so a dead endpoint costs about one timeout per batch, not one per event.
 *
 * <h3>Order and concurrency</h3>
 *
 * <p>The events of a batch are sent concurrently, at most {@link
 * WebhookTransport.Builder#maxInFlightPerEndpoint} requests per endpoint and {@link
 * WebhookTransport.Builder#maxInFlight} in all per batch, each waiting on a thread of the
 * transport's own pool, and each gets its own result. The transport makes no promise of order
 * within a batch ({@link WebhookTransport#keepsOrderWithinBatch()} is false): a relay in ordered
 * mode keeps per-aggregate order by giving it at most one event per aggregate per call. {@link
 * WebhookTransport#sendBatchAsync} completes each event's result as soon as it is final.
 *
 * <h3>Security</h3>
 *
 * <ul>
 *   <li>Only {@code https} unless {@link WebhookTransport.Builder#allowHttp()}.
 *   <li>Before each batch, every endpoint host is resolved with the {@link AddressResolver} and
 *       refused if any address is not public (loopback, private, link-local and the other kinds
 *       listed at {@link WebhookTransport.Builder#allowPrivateAddresses()}, which permits them).
 *       Cloud metadata addresses (169.254.169.254, fd00:ec2::254, …) are refused always. A refused
 *       address is a configuration mistake or a DNS answer that may change, never an event's fault:
 *       the endpoint's events are held, not rejected. Where the address is known when the transport
 *       is built (an endpoint given to the builder, {@link WebhookRouter#to} or {@link
 *       WebhookRouter#byDestination}, whose host is an IP literal or {@code localhost}), {@link
 *       WebhookTransport.Builder#build()} fails instead, naming the endpoint and the option. The
 *       HTTP client resolves the host again when it connects: {@link AddressResolver} says what
 *       that leaves open (DNS rebinding) and why egress rules in the network are still worth
 *       having.
 *   <li>Redirects are never followed; connect and request timeouts always apply.
 *   <li>At most {@link WebhookTransport#MAX_RESPONSE_BODY_BYTES} of a response body are read, then
 *       discarded; bodies are never logged or put in failure reasons. Secrets are never logged nor
 *       put in reasons or exception messages; URLs appear without their query string.
 * </ul>
 */
package dev.outboxkit.http;
