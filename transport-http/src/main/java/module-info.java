/**
 * Signed HTTP webhooks for OutboxKit, following the Standard Webhooks specification: {@code
 * WebhookTransport} to publish, {@code WebhookSigner} and {@code WebhookVerifier} for either side.
 *
 * <p>{@code java.net.http} is required transitively because a caller may hand the transport its own
 * {@link java.net.http.HttpClient}.
 */
module dev.outboxkit.http {
  requires transitive dev.outboxkit.api;
  requires transitive java.net.http;
  requires org.slf4j;

  exports dev.outboxkit.http;
}
