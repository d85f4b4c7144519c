package dev.outboxkit.samples.servlet;

import dev.outboxkit.http.WebhookVerifier;
import dev.outboxkit.testkit.http.HttpReceiver;
import dev.outboxkit.testkit.http.HttpReceiver.Reply;
import dev.outboxkit.testkit.http.HttpReceiver.Request;
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A real webhook endpoint on 127.0.0.1 (the test kit's {@link HttpReceiver}): verifies each
 * request's signature (401 if it fails) and records the verified ones by webhook id. Requests for
 * one chosen order can be held unanswered, to catch the relay with a batch in flight. Public for
 * samples-javaee's EJB tests, which compile a copy of it.
 */
public final class WebhookReceiver implements AutoCloseable {
  /** Verified webhooks: webhook id to order id (the aggregate id header). */
  public final Map<String, String> received = new ConcurrentHashMap<>();

  private final WebhookVerifier verifier;
  private final HttpReceiver server;
  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch heldArrived = new CountDownLatch(1);
  private volatile String holdOrder;

  /**
   * Starts a receiver on 127.0.0.1 that verifies signatures with this secret.
   *
   * @param secret the {@code whsec_...} secret
   * @throws IOException if the server cannot bind
   */
  public WebhookReceiver(String secret) throws IOException {
    verifier = WebhookVerifier.of(secret);
    server =
        HttpReceiver.start(
            r -> {
              WebhookVerifier.Result check = verifier.verify(r.headers(), r.body());
              return check.isValid() ? null : check.toString();
            });
    server.respond(this::answer);
  }

  /** Where to POST. */
  public URI uri() {
    return server.uri("/events");
  }

  /** Leaves requests for this order unanswered until {@link #close()}. */
  void hold(String orderId) {
    holdOrder = orderId;
  }

  boolean awaitHeld(long seconds) throws InterruptedException {
    return heldArrived.await(seconds, TimeUnit.SECONDS);
  }

  private Reply answer(Request request) {
    String orderId = request.header("outbox-aggregate-id");
    if (orderId.equals(holdOrder)) {
      heldArrived.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return Reply.status(503);
    }
    received.put(request.header("webhook-id"), orderId);
    return Reply.status(204);
  }

  @Override
  public void close() {
    release.countDown();
    server.close();
  }
}
