package dev.outboxkit.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A real HTTP server on 127.0.0.1 that records what arrives, optionally checks signatures with a
 * {@link WebhookVerifier} (answering 401 when they fail) and otherwise answers as told.
 */
final class Receiver implements AutoCloseable {

  /** One request as received. */
  record Request(String path, Map<String, List<String>> headers, byte[] body, String refusal) {
    String header(String name) {
      List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
      return v == null ? null : v.get(0);
    }

    String bodyText() {
      return new String(body, java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  /** How to answer. */
  record Reply(int status, Map<String, String> headers, CountDownLatch hangUntil, long delayMs) {
    static Reply status(int status) {
      return new Reply(status, Map.of(), null, 0);
    }

    static Reply status(int status, String header, String value) {
      return new Reply(status, Map.of(header, value), null, 0);
    }

    static Reply hang(CountDownLatch until) {
      return new Reply(204, Map.of(), until, 0);
    }

    static Reply delayed(int status, long delayMs) {
      return new Reply(status, Map.of(), null, delayMs);
    }
  }

  private final HttpServer server;
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final List<Request> requests = new ArrayList<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger maxInFlight = new AtomicInteger();
  private final WebhookVerifier verifier;
  private volatile Function<Request, Reply> responder = r -> Reply.status(204);

  Receiver(WebhookVerifier verifier) throws IOException {
    this.verifier = verifier;
    this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::handle);
    server.setExecutor(pool);
    server.start();
  }

  Receiver respond(Function<Request, Reply> responder) {
    this.responder = responder;
    return this;
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  List<Request> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }

  List<Request> requests(String path) {
    return requests().stream().filter(r -> r.path().equals(path)).toList();
  }

  int maxInFlight() {
    return maxInFlight.get();
  }

  private void handle(HttpExchange exchange) throws IOException {
    int now = inFlight.incrementAndGet();
    maxInFlight.accumulateAndGet(now, Math::max);
    boolean answered = false;
    try (exchange) {
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      Map<String, List<String>> headers = new LinkedHashMap<>();
      exchange
          .getRequestHeaders()
          .forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), List.copyOf(v)));
      String refusal = null;
      if (verifier != null) {
        WebhookVerifier.Result r = verifier.verify(exchange.getRequestHeaders(), body);
        refusal = r.isValid() ? null : r.toString();
      }
      Request request = new Request(exchange.getRequestURI().getPath(), headers, body, refusal);
      synchronized (requests) {
        requests.add(request);
      }
      Reply reply = refusal != null ? Reply.status(401) : responder.apply(request);
      if (reply.hangUntil() != null) {
        reply.hangUntil().await(10, TimeUnit.SECONDS);
      }
      if (reply.delayMs() > 0) {
        Thread.sleep(reply.delayMs());
      }
      reply.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
      // From the client's view the request is over once the status line leaves.
      inFlight.decrementAndGet();
      answered = true;
      byte[] answer = ("answer with a secret-looking body " + reply.status()).getBytes();
      exchange.sendResponseHeaders(reply.status(), reply.status() == 204 ? -1 : answer.length);
      if (reply.status() != 204) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(answer);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (!answered) {
        inFlight.decrementAndGet();
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    pool.shutdownNow();
  }
}
