package dev.outboxkit.benchmarks;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.outboxkit.http.WebhookEndpoint;
import dev.outboxkit.http.WebhookTransport;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxRelay;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * Outage isolation: how fast one webhook endpoint's events are delivered alone, beside a second
 * endpoint that answers, beside a second endpoint that refuses every connection (down for the whole
 * run), and beside a slow one that answers only after {@link #SLOW_ANSWER} (one event in a hundred
 * is its). One relay, one router over both endpoints, the modes taking turns in each round.
 */
final class IsolationScenario implements Scenario {
  private static final String TABLE = "outbox_event";
  private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  private static final Duration TIME_LIMIT = Duration.ofSeconds(60);
  private static final Duration SLOW_ANSWER = Duration.ofSeconds(10);

  /** Beside the slow endpoint the healthy one's rate is measured over this window at most. */
  private static final Duration SLOW_WINDOW = Duration.ofSeconds(20);

  /** Beside the slow endpoint, every this-many-th event is the slow one's. */
  private static final int SLOW_SHARE = 100;

  private enum Mode {
    ALONE("healthy endpoint alone"),
    OTHER_UP("beside an endpoint that answers"),
    OTHER_DOWN("beside an endpoint refusing connections"),
    OTHER_SLOW("beside an endpoint answering after 10 s (1 event in 100)");

    final String label;

    Mode(String label) {
      this.label = label;
    }
  }

  @Override
  public String name() {
    return "isolation";
  }

  @Override
  public void run(BenchRun run) throws Exception {
    int events = run.quick() ? 1_000 : 5_000;
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    ExecutorService handlers =
        Executors.newFixedThreadPool(
            WebhookTransport.DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT * 4, Daemons.named("receiver"));
    LongAdder healthyReceived = new LongAdder();
    server.createContext("/healthy", exchange -> answer(exchange, healthyReceived));
    server.createContext("/other", exchange -> answer(exchange, new LongAdder()));
    server.setExecutor(handlers);
    server.start();
    // The slow endpoint is another service: its own server, a thread per request it holds.
    HttpServer slowServer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    ExecutorService slowHandlers = Executors.newCachedThreadPool(Daemons.named("slow-receiver"));
    slowServer.createContext(
        "/slow",
        exchange -> {
          try {
            Thread.sleep(SLOW_ANSWER.toMillis());
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          answer(exchange, new LongAdder());
        });
    slowServer.setExecutor(slowHandlers);
    slowServer.start();
    String base = "http://127.0.0.1:" + server.getAddress().getPort();
    URI slow = URI.create("http://127.0.0.1:" + slowServer.getAddress().getPort() + "/slow");
    URI refusing = URI.create("http://127.0.0.1:" + closedPort() + "/other");
    try {
      Stats[] rates = new Stats[Mode.values().length];
      for (int m = 0; m < rates.length; m++) {
        rates[m] = new Stats();
      }
      for (int r = -1; r < run.reps(); r++) { // round -1 warms up and is discarded
        for (Mode mode : Mode.values()) {
          URI other =
              mode == Mode.OTHER_DOWN
                  ? refusing
                  : mode == Mode.OTHER_SLOW ? slow : URI.create(base + "/other");
          double rate =
              drain(run, mode, events, URI.create(base + "/healthy"), other, healthyReceived);
          if (r >= 0) {
            rates[mode.ordinal()].add(rate);
          }
        }
      }
      List<String[]> rows = new ArrayList<>();
      rows.add(
          new String[] {
            "healthy endpoint's events", "events/s", "ratio to alone", "ratio to the other up"
          });
      for (Mode mode : Mode.values()) {
        double median = rates[mode.ordinal()].median();
        rows.add(
            new String[] {
              mode.label,
              rates[mode.ordinal()].format(),
              String.format("%.2f", median / rates[Mode.ALONE.ordinal()].median()),
              String.format("%.2f", median / rates[Mode.OTHER_UP.ordinal()].median())
            });
      }
      run.report()
          .section(
              "Outage isolation — " + run.flavor(),
              String.format(
                  "%,d events for one webhook endpoint (a JDK HttpServer on 127.0.0.1 answering"
                      + " 204), delivered by one started relay (batch %d, unordered) through one"
                      + " WebhookTransport whose router also serves a second endpoint with as many"
                      + " events, interleaved: alone (no second endpoint's events), beside a second"
                      + " endpoint that answers, and beside one whose port refuses every"
                      + " connection for the whole run (its events held back, uncharged). Rate ="
                      + " the healthy endpoint's events over the time until its last one arrived."
                      + " Beside a second endpoint the relay claims, sends and records twice the"
                      + " events, the down one's each once (then held back), so half the rate of"
                      + " alone is the ceiling of a drain of such a mixed backlog. Beside the slow"
                      + " endpoint (a server of its own; one event in %d is its, answered after %d s), the healthy"
                      + " endpoint's events delivered within %d s count. Targets: with the other"
                      + " endpoint down ≥ 0.8 of with it up; beside the slow one ≥ 0.8 of alone.",
                  events,
                  OutboxRelay.DEFAULT_BATCH_SIZE,
                  SLOW_SHARE,
                  SLOW_ANSWER.toSeconds(),
                  SLOW_WINDOW.toSeconds()),
              rows);
    } finally {
      server.stop(0);
      handlers.shutdownNow();
      slowServer.stop(0);
      slowHandlers.shutdownNow();
      EventLoader.truncate(run.db().dataSource(), TABLE);
    }
  }

  private static double drain(
      BenchRun run, Mode mode, int events, URI healthy, URI other, LongAdder received)
      throws Exception {
    DataSource ds = run.db().dataSource();
    EventLoader.truncate(ds, TABLE);
    boolean slow = mode == Mode.OTHER_SLOW;
    int total = mode == Mode.ALONE || slow ? events : events * 2;
    EventLoader.insert(ds, run.dialect(), TABLE, 1, total, 1000, EventStatus.PENDING);
    // Every other event is the second endpoint's (alone: none are; beside the slow one: one in
    // SLOW_SHARE).
    String others = mode == Mode.ALONE ? "1 = 0" : "MOD(seq, " + (slow ? SLOW_SHARE : 2) + ") = 0";
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "UPDATE "
              + TABLE
              + " SET destination = CASE WHEN "
              + others
              + " THEN 'other' ELSE 'healthy' END");
    }
    int healthyEvents = slow ? events - events / SLOW_SHARE : events;
    EventLoader.analyze(ds, run.dialect(), TABLE);
    WebhookEndpoint healthyEndpoint = WebhookEndpoint.of(healthy, SECRET);
    WebhookEndpoint otherEndpoint = WebhookEndpoint.of(other, SECRET);
    try (WebhookTransport transport =
            WebhookTransport.builder(
                    e ->
                        "healthy".equals(e.destination().orElse(""))
                            ? healthyEndpoint
                            : otherEndpoint)
                .name("isolation")
                .allowHttp()
                .allowPrivateAddresses()
                .build();
        OutboxRelay relay =
            OutboxRelay.builder(ds, transport)
                .name("isolation")
                .ordered(false)
                .pollInterval(Duration.ofMillis(20))
                .shutdownTimeout(Duration.ofSeconds(1))
                .build()) {
      received.reset();
      long start = System.nanoTime();
      relay.start();
      long deadline = start + (slow ? SLOW_WINDOW : TIME_LIMIT).toNanos();
      while (received.sum() < healthyEvents) {
        if (System.nanoTime() - deadline > 0) {
          if (slow) {
            break; // the rate is what arrived within the window
          }
          throw new IllegalStateException(
              mode
                  + ": "
                  + received.sum()
                  + " of "
                  + healthyEvents
                  + " delivered in "
                  + TIME_LIMIT);
        }
        Thread.sleep(2);
      }
      return received.sum() / ((System.nanoTime() - start) / 1e9);
    }
  }

  private static void answer(HttpExchange exchange, LongAdder counter) throws IOException {
    try (InputStream body = exchange.getRequestBody()) {
      body.readAllBytes();
    }
    counter.increment();
    exchange.sendResponseHeaders(204, -1);
    exchange.close();
  }

  /** A loopback port nothing listens on: connections to it are refused at once. */
  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
