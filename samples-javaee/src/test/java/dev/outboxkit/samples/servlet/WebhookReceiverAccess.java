package dev.outboxkit.samples.servlet;

import java.io.IOException;
import java.net.URI;
import java.util.Map;

/**
 * The samples' {@link WebhookReceiver} (package-private, copied from {@code samples} at build time)
 * for tests in other packages.
 */
public final class WebhookReceiverAccess implements AutoCloseable {
  private final WebhookReceiver receiver;

  /**
   * Starts a receiver on 127.0.0.1 that verifies signatures with this secret.
   *
   * @param secret the {@code whsec_...} secret
   * @throws IOException if the server cannot bind
   */
  public WebhookReceiverAccess(String secret) throws IOException {
    receiver = new WebhookReceiver(secret);
  }

  /** Where to POST. */
  public URI uri() {
    return receiver.uri();
  }

  /** Verified webhooks: webhook id to order id. */
  public Map<String, String> received() {
    return receiver.received;
  }

  @Override
  public void close() {
    receiver.close();
  }
}
