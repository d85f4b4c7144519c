package dev.outboxkit.benchmarks;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.Transport;
import dev.outboxkit.http.WebhookHeaders;
import dev.outboxkit.http.WebhookSigner;
import dev.outboxkit.http.WebhookTransport;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * A JDK HTTP server on 127.0.0.1 answering 204; raw client: a JDK HttpClient sending the same
 * signed requests from as many threads as the transport keeps in flight per endpoint.
 */
final class WebhookTarget implements BrokerTarget {
  private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  private static final int CONCURRENCY = WebhookTransport.DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT;

  private final HttpServer server;
  private final ExecutorService handlers;
  private final Map<String, LongAdder> received = new ConcurrentHashMap<>();
  private final AtomicInteger paths = new AtomicInteger();
  private final WebhookSigner signer = WebhookSigner.of(SECRET);

  private WebhookTarget(HttpServer server, ExecutorService handlers) {
    this.server = server;
    this.handlers = handlers;
  }

  static WebhookTarget start() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    ExecutorService handlers = Executors.newFixedThreadPool(CONCURRENCY, Daemons.named("receiver"));
    WebhookTarget target = new WebhookTarget(server, handlers);
    server.createContext("/", target::handle);
    server.setExecutor(handlers);
    server.start();
    return target;
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (InputStream body = exchange.getRequestBody()) {
      body.readAllBytes();
    }
    received.computeIfAbsent(exchange.getRequestURI().getPath(), p -> new LongAdder()).increment();
    exchange.sendResponseHeaders(204, -1);
    exchange.close();
  }

  @Override
  public String name() {
    return "Webhook";
  }

  @Override
  public String describe() {
    return "Webhook: a JDK HttpServer on 127.0.0.1 answering 204 (a fresh path per round), the"
        + " transport with allowHttp and allowPrivateAddresses, HTTP/1.1; raw client: a JDK"
        + " HttpClient sending the same signed requests from "
        + CONCURRENCY
        + " threads (the transport's default in-flight limit per endpoint)";
  }

  @Override
  public int events(boolean quick) {
    return quick ? 2_000 : 10_000;
  }

  @Override
  public String newDestination() {
    return "/hooks/" + paths.incrementAndGet();
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  @Override
  public Transport transport(String destination) {
    return WebhookTransport.builder(uri(destination), SECRET)
        .name("bench")
        .allowHttp()
        .allowPrivateAddresses()
        .build();
  }

  @Override
  public double sendRaw(String destination, List<OutboxEvent> events, int batchSize)
      throws Exception {
    ExecutorService senders = Executors.newFixedThreadPool(CONCURRENCY, Daemons.named("raw-http"));
    HttpClient client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    URI uri = uri(destination);
    AtomicInteger next = new AtomicInteger();
    try {
      long start = System.nanoTime();
      List<Future<?>> workers = new ArrayList<>();
      for (int w = 0; w < CONCURRENCY; w++) {
        workers.add(
            senders.submit(
                () -> {
                  for (int i = next.getAndIncrement();
                      i < events.size();
                      i = next.getAndIncrement()) {
                    send(client, request(uri, events.get(i)));
                  }
                  return null;
                }));
      }
      for (Future<?> f : workers) {
        f.get();
      }
      return (System.nanoTime() - start) / 1e9;
    } finally {
      senders.shutdown();
    }
  }

  /**
   * Sends one request; a request whose connection closed under it (a kept-alive connection closed
   * by the other side as the request went out) is sent again, as an application would.
   */
  private static void send(HttpClient client, HttpRequest request)
      throws IOException, InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        HttpResponse<Void> r = client.send(request, HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() != 204) {
          throw new IllegalStateException("receiver answered " + r.statusCode());
        }
        return;
      } catch (IOException e) {
        if (attempt == 3) {
          throw e;
        }
      }
    }
  }

  /** The request the transport sends: same body, signature and metadata headers. */
  private HttpRequest request(URI uri, OutboxEvent e) {
    String id = e.id().toString();
    long timestamp = System.currentTimeMillis() / 1000;
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri)
            .POST(HttpRequest.BodyPublishers.ofByteArray(e.payload()))
            .header("content-type", e.contentType())
            .header(WebhookHeaders.ID, id)
            .header(WebhookHeaders.TIMESTAMP, Long.toString(timestamp))
            .header(WebhookHeaders.SIGNATURE, signer.sign(id, timestamp, e.payload()))
            .header(WebhookHeaders.EVENT_TYPE, e.eventType())
            .header(WebhookHeaders.AGGREGATE_TYPE, e.aggregateType())
            .header(WebhookHeaders.AGGREGATE_ID, e.aggregateId())
            .header(WebhookHeaders.SCHEMA_VERSION, Integer.toString(e.schemaVersion()))
            .header(WebhookHeaders.OCCURRED_AT, e.occurredAt().toString())
            .header(WebhookHeaders.ATTEMPT, "1");
    e.headers().forEach(b::header);
    return b.build();
  }

  @Override
  public long arrived(String destination) {
    LongAdder n = received.get(destination);
    return n == null ? 0 : n.sum();
  }

  @Override
  public void close() {
    server.stop(0);
    handlers.shutdown();
  }
}
