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
 */
package dev.outboxkit.http;
