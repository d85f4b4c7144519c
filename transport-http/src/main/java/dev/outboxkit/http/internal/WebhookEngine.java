package dev.outboxkit.http.internal;

import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.http.WebhookRouter;
import dev.outboxkit.internal.BatchTally;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every batch of one webhook transport shares: its router, client and thread pool, its limits,
 * the parts that build, guard and classify requests, and each endpoint's state between batches
 * (circuit breaker). {@link WebhookBatch} does the scheduling of one batch.
 */
public final class WebhookEngine {
  /** Endpoint state entries kept before closed ones are forgotten (routers may make many). */
  static final int MAX_TRACKED_ENDPOINTS = 10_000;

  private static final Logger log = LoggerFactory.getLogger("dev.outboxkit.http.WebhookTransport");

  final String name;
  final WebhookRouter router;
  final HttpClient client;
  final ExecutorService pool;
  final int maxInFlight;
  final int maxInFlightPerEndpoint;
  final Duration circuitOpenDuration;
  final Clock clock;
  final DestinationGuard guard;
  final WebhookRequests requests;
  final ResponseClassifier classifier;
  final DiscardingBodyHandler discard;
  private final ConcurrentHashMap<URI, EndpointState> endpoints = new ConcurrentHashMap<>();

  /**
   * @param name the transport's name, for log lines
   * @param http the client, and the pool that runs the workers that send requests (at most {@code
   *     maxInFlight} per batch)
   * @param maxInFlight requests in flight within one batch, across endpoints
   * @param maxInFlightPerEndpoint requests in flight to one endpoint within one batch
   * @param circuitOpenDuration how long an endpoint that failed a batch is left alone
   * @param maxResponseBodyBytes bytes of a response body read (and discarded) at most
   */
  public WebhookEngine(
      String name,
      WebhookRouter router,
      HttpClientHandle http,
      int maxInFlight,
      int maxInFlightPerEndpoint,
      Duration circuitOpenDuration,
      Clock clock,
      DestinationGuard guard,
      WebhookRequests requests,
      ResponseClassifier classifier,
      int maxResponseBodyBytes) {
    this.name = name;
    this.router = router;
    this.client = http.client();
    this.pool = http.pool();
    this.maxInFlight = maxInFlight;
    this.maxInFlightPerEndpoint = maxInFlightPerEndpoint;
    this.circuitOpenDuration = circuitOpenDuration;
    this.clock = clock;
    this.guard = guard;
    this.requests = requests;
    this.classifier = classifier;
    this.discard = new DiscardingBodyHandler(maxResponseBodyBytes);
  }

  /**
   * Sends a batch and waits for every result; on an interrupt of the calling thread, no request
   * starts any more and it returns at once with the flag set, unconfirmed events unavailable. Logs
   * the batch's tally at DEBUG.
   */
  public List<SendResult> send(List<OutboxMessage> batch) {
    long start = System.nanoTime();
    List<SendResult> results = new WebhookBatch(this, batch, Thread.currentThread()).execute();
    if (log.isDebugEnabled()) {
      log.debug(
          "[{}] {}",
          name,
          BatchTally.of(batch, results).summary(batch.size(), System.nanoTime() - start));
    }
    return results;
  }

  /**
   * Starts a batch and returns one future per message, each completed once its result is final;
   * cancelling one stops the batch.
   */
  public List<CompletableFuture<SendResult>> start(List<OutboxMessage> batch) {
    return new WebhookBatch(this, batch, null).start();
  }

  EndpointState state(URI url) {
    EndpointState s = endpoints.get(url);
    if (s != null) {
      return s;
    }
    if (endpoints.size() >= MAX_TRACKED_ENDPOINTS) {
      // Forgetting a closed breaker loses nothing but the "warned once" flag.
      endpoints.values().removeIf(e -> !e.breaker.isOpen());
    }
    return endpoints.computeIfAbsent(url, u -> new EndpointState());
  }
}
