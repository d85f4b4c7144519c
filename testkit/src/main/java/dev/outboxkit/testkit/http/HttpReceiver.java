package dev.outboxkit.testkit.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
 * A real HTTP server (the JDK's {@code com.sun.net.httpserver}) on 127.0.0.1, on a port of its own,
 * that records every request and answers as the test tells it ({@link #respond}): 204 unless told
 * otherwise, a status with a header, late, or not until a latch opens. Each request runs on a
 * thread of its own, so a held request does not hold back the others.
 *
 * <p>A caller that checks requests (a webhook signature, say) passes the check to {@link
 * #start(Function)}: a request it refuses is recorded with the reason and answered 401, and the
 * responder never sees it. The check stays with the caller because the test kit knows no transport.
 */
public final class HttpReceiver implements AutoCloseable {
  /** How long a {@link Reply#hang} holds at most, so that a forgotten latch cannot hang a test. */
  private static final long HANG_LIMIT_SECONDS = 10;

  /**
   * One request as received.
   *
   * @param path the request URI's path
   * @param headers every header, names in lower case
   * @param body the body, exactly as received
   * @param refusal why the check refused it, or null if it passed or there is none
   */
  public record Request(
      String path, Map<String, List<String>> headers, byte[] body, String refusal) {
    /** The header's first value, or null; the name matches in any case. */
    public String header(String name) {
      List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
      return v == null ? null : v.get(0);
    }

    /** The body as UTF-8 text. */
    public String bodyText() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  /**
   * How to answer a request.
   *
   * @param status the status code
   * @param headers response headers
   * @param hangUntil a latch to wait for before answering (at most 10 s), or null
   * @param delayMs how long to wait before answering
   */
  public record Reply(
      int status, Map<String, String> headers, CountDownLatch hangUntil, long delayMs) {
    /** This status at once. */
    public static Reply status(int status) {
      return new Reply(status, Map.of(), null, 0);
    }

    /** This status with one response header. */
    public static Reply status(int status, String header, String value) {
      return new Reply(status, Map.of(header, value), null, 0);
    }

    /** 204 once the latch opens, or after 10 s. */
    public static Reply hang(CountDownLatch until) {
      return new Reply(204, Map.of(), until, 0);
    }

    /** This status after a delay. */
    public static Reply delayed(int status, long delayMs) {
      return new Reply(status, Map.of(), null, delayMs);
    }
  }

  private final HttpServer server;
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final List<Request> requests = new ArrayList<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger maxInFlight = new AtomicInteger();
  private final AtomicInteger handling = new AtomicInteger();
  private final Function<Request, String> check;
  private volatile Function<Request, Reply> responder = r -> Reply.status(204);

  private HttpReceiver(Function<Request, String> check) throws IOException {
    this.check = check;
    this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::handle);
    server.setExecutor(pool);
    server.start();
  }

  /** Starts a receiver that takes every request. */
  public static HttpReceiver start() throws IOException {
    return new HttpReceiver(r -> null);
  }

  /**
   * Starts a receiver that first checks each request.
   *
   * @param check returns why it refuses a request (answered 401), or null to take it
   */
  public static HttpReceiver start(Function<Request, String> check) throws IOException {
    return new HttpReceiver(check);
  }

  /**
   * Answers the requests from now on as {@code responder} says. It runs on the request's thread and
   * may block there, to hold that request back.
   *
   * @return this receiver
   */
  public HttpReceiver respond(Function<Request, Reply> responder) {
    this.responder = responder;
    return this;
  }

  /** {@code http://127.0.0.1:<port><path>}. */
  public URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  /** Every request so far, in the order of arrival. */
  public List<Request> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }

  /** The requests so far to this path. */
  public List<Request> requests(String path) {
    return requests().stream().filter(r -> r.path().equals(path)).toList();
  }

  /** The most requests that were open at once: arrived, status line not yet sent. */
  public int maxInFlight() {
    return maxInFlight.get();
  }

  /**
   * Waits until every request handler has returned: the held requests answered (or their clients
   * gone), so that a test's next request does not meet the server still finishing old ones.
   *
   * @throws IllegalStateException if a handler is still running after {@code timeout}
   */
  public void awaitHandled(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (handling.get() > 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            handling.get() + " request(s) still handled after " + timeout);
      }
      Thread.sleep(5);
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    handling.incrementAndGet();
    try {
      answer(exchange);
    } finally {
      handling.decrementAndGet();
    }
  }

  private void answer(HttpExchange exchange) throws IOException {
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
      Request received = new Request(exchange.getRequestURI().getPath(), headers, body, null);
      Request request = new Request(received.path(), headers, body, check.apply(received));
      synchronized (requests) {
        requests.add(request);
      }
      Reply reply = request.refusal() != null ? Reply.status(401) : responder.apply(request);
      if (reply.hangUntil() != null) {
        reply.hangUntil().await(HANG_LIMIT_SECONDS, TimeUnit.SECONDS);
      }
      if (reply.delayMs() > 0) {
        Thread.sleep(reply.delayMs());
      }
      reply.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
      // From the client's view the request is over once the status line leaves.
      inFlight.decrementAndGet();
      answered = true;
      // A body a client must not log or echo (tests of log hygiene look for it).
      byte[] answer =
          ("answer with a secret-looking body " + reply.status()).getBytes(StandardCharsets.UTF_8);
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

  /** Stops the server and interrupts the requests it still holds. */
  @Override
  public void close() {
    server.stop(0);
    pool.shutdownNow();
  }
}
