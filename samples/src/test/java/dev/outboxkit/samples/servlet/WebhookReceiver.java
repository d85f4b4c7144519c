package dev.outboxkit.samples.servlet;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.outboxkit.http.WebhookVerifier;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A real webhook endpoint on 127.0.0.1: verifies each request's signature (401 if it fails) and
 * records the verified ones by webhook id. Requests for one chosen order can be held unanswered, to
 * catch the relay with a batch in flight.
 */
final class WebhookReceiver implements AutoCloseable {
  /** Verified webhooks: webhook id to order id (the aggregate id header). */
  final Map<String, String> received = new ConcurrentHashMap<>();

  private final WebhookVerifier verifier;
  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch heldArrived = new CountDownLatch(1);
  private volatile String holdOrder;

  WebhookReceiver(String secret) throws IOException {
    verifier = WebhookVerifier.of(secret);
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/events", this::handle);
    server.setExecutor(threads); // a held request must not block the others
    server.start();
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/events");
  }

  /** Leaves requests for this order unanswered until {@link #close()}. */
  void hold(String orderId) {
    holdOrder = orderId;
  }

  boolean awaitHeld(long seconds) throws InterruptedException {
    return heldArrived.await(seconds, TimeUnit.SECONDS);
  }

  private void handle(HttpExchange exchange) throws IOException {
    byte[] body;
    try (InputStream in = exchange.getRequestBody()) {
      body = in.readAllBytes();
    }
    WebhookVerifier.Result check = verifier.verify(exchange.getRequestHeaders(), body);
    if (!check.isValid()) {
      reply(exchange, 401);
      return;
    }
    String orderId = exchange.getRequestHeaders().getFirst("outbox-aggregate-id");
    if (orderId.equals(holdOrder)) {
      heldArrived.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      reply(exchange, 503);
      return;
    }
    received.put(check.webhookId().orElseThrow(), orderId);
    reply(exchange, 204);
  }

  private static void reply(HttpExchange exchange, int status) throws IOException {
    exchange.sendResponseHeaders(status, -1);
    exchange.close();
  }

  @Override
  public void close() {
    release.countDown();
    server.stop(0);
    threads.shutdownNow();
  }
}
