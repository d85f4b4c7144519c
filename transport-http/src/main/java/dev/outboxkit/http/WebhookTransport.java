package dev.outboxkit.http;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import dev.outboxkit.http.internal.DestinationGuard;
import dev.outboxkit.http.internal.ResponseClassifier;
import dev.outboxkit.http.internal.Threads;
import dev.outboxkit.http.internal.Urls;
import dev.outboxkit.http.internal.WebhookEngine;
import dev.outboxkit.http.internal.WebhookRequests;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes events as signed HTTP POST requests (<a
 * href="https://www.standardwebhooks.com/">Standard Webhooks</a>). Thread-safe; one instance may
 * serve several relays.
 *
 * <pre>{@code
 * Transport t = WebhookTransport.builder(URI.create("https://example.com/hooks"), "whsec_...")
 *     .build();
 * // or one endpoint per event:
 * Transport t = WebhookTransport.builder(event -> endpoints.forTenant(event.tenant()))
 *     .maxInFlightPerEndpoint(16)
 *     .build();
 * }</pre>
 *
 * <h2>Request</h2>
 *
 * The body is the event payload, byte for byte, with the event's content type. Headers: {@code
 * webhook-id} (the event id, identical on every attempt, for deduplication), {@code
 * webhook-timestamp} (unix seconds of this attempt, read from the clock, so each retry is signed
 * afresh), {@code webhook-signature} (one {@code v1,…} per secret of the endpoint), the {@code
 * outbox-*} metadata headers listed in {@link WebhookHeaders}, then the event's own headers, then
 * the endpoint's extra headers. An event header is skipped (with one WARN per name) when its name
 * is reserved ({@code content-type}, {@code webhook-*}, {@code outbox-*}, {@code svix-*},
 * connection-level headers), so an event cannot forge a signature; it is also skipped when the
 * endpoint sets a header of that name. The transport's own client speaks HTTP/1.1 and never follows
 * redirects; pass a client to {@link Builder#httpClient} for HTTP/2 or custom TLS.
 *
 * <h2>Outcome</h2>
 *
 * <p>Statuses are read by the {@link WebhookStatusPolicy} ({@link Builder#statusPolicy}); the table
 * shows {@link WebhookStatusPolicy#STANDARD}, what Standard Webhooks senders do.
 *
 * <table>
 *   <caption>How an answer becomes a {@link SendResult}</caption>
 *   <tr><th>answer</th><th>result</th></tr>
 *   <tr><td>2xx</td><td>delivered</td></tr>
 *   <tr><td>401, 403 (credentials refused)</td><td>the endpoint's outage: unavailable for that
 *       endpoint (nothing charged, its events held back, the others flow), its circuit opens</td></tr>
 *   <tr><td>404, 5xx (503 included)</td><td>retry; counts as an outage: when every request of
 *       the batch to that endpoint failed so, unavailable for that endpoint</td></tr>
 *   <tr><td>410 Gone</td><td>reject</td></tr>
 *   <tr><td>every other status: 3xx (never followed), 408, 429, other 4xx</td><td>retry</td></tr>
 *   <tr><td>any failed answer with {@code Retry-After}</td><td>the delay it asks for (seconds or
 *       HTTP date, capped by {@link Builder#maxRetryAfter})</td></tr>
 *   <tr><td>connect error, timeout, I/O error, unresolvable host</td><td>retry; counts as an
 *       outage</td></tr>
 *   <tr><td>destination refused (scheme, address)</td><td>reject</td></tr>
 *   <tr><td>router returned null</td><td>reject</td></tr>
 *   <tr><td>router threw</td><td>retry</td></tr>
 *   <tr><td>the calling thread is interrupted</td><td>events the endpoint already answered keep
 *       their result (2xx: delivered); every other event is unavailable, "not confirmed:
 *       interrupted …" (no attempt charged). No new request starts, the requests in flight are
 *       abandoned and the call returns at once with the interrupt flag set; see below</td></tr>
 * </table>
 *
 * <p><b>Per-endpoint circuit breaker.</b> When every request of a batch to one endpoint fails as an
 * outage, all of that endpoint's events in the batch are answered {@link
 * SendResult#unavailable(String, String)} with the scope {@code "webhook endpoint <url>"} (no
 * attempt charged; the relay holds back that endpoint's events only and goes on with the others)
 * and the breaker opens for {@link Builder#circuitOpenDuration} (longer if a 503 asked for it).
 * While open, its events are answered unavailable without a request. Then one request probes; if
 * the endpoint answers at all, it closes. Other endpoints are unaffected. Within a batch, once an
 * endpoint has failed as an outage and never answered, no new request is started to it until those
 * in flight complete, so a dead endpoint costs about one timeout per batch, not one per event.
 *
 * <p><b>Order and concurrency.</b> The events of a batch are sent concurrently, at most {@link
 * Builder#maxInFlightPerEndpoint} requests per endpoint and {@link Builder#maxInFlight} in all per
 * batch, each waiting on a thread of the transport's own pool, and each gets its own result. The
 * transport makes no promise of order within a batch ({@link #keepsOrderWithinBatch()} is false): a
 * relay in ordered mode keeps per-aggregate order by giving it at most one event per aggregate per
 * call.
 *
 * <p><b>Interrupts.</b> When the thread in {@link #sendBatch} is interrupted (a relay that gave up
 * on the batch, or is stopping), no further request is started, the requests in flight are
 * cancelled (their worker threads are interrupted) and the call returns at once, without waiting
 * for them, with the interrupt flag set again. Events whose request was answered before keep that
 * answer's result, so those answered 2xx stay delivered. Every other event is {@link
 * SendResult#unavailable(String) unavailable} (no attempt charged): "not confirmed: interrupted
 * before &lt;endpoint&gt; answered" for a request that was in flight, which the endpoint may still
 * have received and processed (receivers deduplicate on {@code webhook-id}), and "not confirmed:
 * interrupted before it was sent" for the rest. Half a batch says nothing about an endpoint, so no
 * circuit breaker changes state. An interrupt that comes before the requests start (during routing
 * or the address check, which waits for DNS without being interruptible) sends nothing at all.
 *
 * <h2>Security</h2>
 *
 * <ul>
 *   <li>Only {@code https} unless {@link Builder#allowHttp()}.
 *   <li>Before each batch, every endpoint host is resolved with the {@link AddressResolver} and
 *       refused if any address is loopback, link-local, private (site-local), unique-local
 *       (fc00::/7), any-local, multicast, shared (100.64.0.0/10) or reserved, unless {@link
 *       Builder#allowPrivateAddresses()}. Cloud metadata addresses (169.254.169.254, fd00:ec2::254,
 *       …) are refused always. <i>DNS rebinding:</i> the HTTP client resolves the host again when
 *       it connects. With the default resolver both lookups normally hit the JVM's address cache
 *       (30 s positive TTL by default), which keeps them consistent, but a hostile DNS server with
 *       a zero TTL can still answer differently the second time. Where tenants control endpoint
 *       URLs, also enforce egress rules in the network (firewall or egress proxy).
 *   <li>Redirects are never followed; connect and request timeouts always apply.
 *   <li>At most {@link #MAX_RESPONSE_BODY_BYTES} of a response body are read, then discarded;
 *       bodies are never logged or put in failure reasons. Secrets are never logged nor put in
 *       reasons or exception messages; URLs appear without their query string.
 * </ul>
 */
public final class WebhookTransport implements Transport {
  /** Time allowed to open a TCP (and TLS) connection: 5 seconds. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);

  /** Time allowed from sending a request until the response status and headers arrive: 15 s. */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(15);

  /** Requests in flight within one batch, across all endpoints: {@value}. */
  public static final int DEFAULT_MAX_IN_FLIGHT = 64;

  /** Requests in flight to one endpoint within one batch: {@value}. */
  public static final int DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT = 8;

  /** Longest {@code Retry-After} honoured: 1 hour. */
  public static final Duration DEFAULT_MAX_RETRY_AFTER = Duration.ofHours(1);

  /** How long an endpoint's breaker stays open before a probe: 30 seconds. */
  public static final Duration DEFAULT_CIRCUIT_OPEN_DURATION = Duration.ofSeconds(30);

  /** Name used in logs and thread names: {@value}. */
  public static final String DEFAULT_NAME = "webhook";

  /** Bytes of a response body read (and discarded) at most: {@value}. */
  public static final int MAX_RESPONSE_BODY_BYTES = 1024;

  private static final Logger log = LoggerFactory.getLogger(WebhookTransport.class);

  private final String name;
  private final HttpClient client;
  private final boolean ownClient;
  private final ExecutorService pool;
  private final Threads threads;
  private final Duration requestTimeout;
  private final WebhookEngine engine;
  private volatile boolean closed;

  private WebhookTransport(Builder b) {
    this.name = b.name;
    this.requestTimeout = b.requestTimeout;
    // Idle threads die after a minute; busy ones are bounded by maxInFlight per batch.
    this.threads = new Threads(b.threadFactory, "outboxkit-" + name + "-");
    this.pool = Executors.newCachedThreadPool(threads.factory("http"));
    this.ownClient = b.httpClient == null;
    Duration connectTimeout;
    if (ownClient) {
      connectTimeout = b.connectTimeout != null ? b.connectTimeout : DEFAULT_CONNECT_TIMEOUT;
      // HTTP/1.1: over plain http the JDK's HTTP/2 default adds an h2c upgrade offer to every
      // request, which receivers rarely take and some proxies mishandle. Pass a client for h2.
      this.client =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(connectTimeout)
              .followRedirects(HttpClient.Redirect.NEVER)
              .executor(pool)
              .build();
    } else {
      this.client = b.httpClient;
      connectTimeout = client.connectTimeout().orElse(null);
    }
    int maxInFlightPerEndpoint = Math.min(b.maxInFlightPerEndpoint, b.maxInFlight);
    this.engine =
        new WebhookEngine(
            name,
            b.router,
            client,
            pool,
            b.maxInFlight,
            maxInFlightPerEndpoint,
            b.circuitOpenDuration,
            b.clock,
            new DestinationGuard(b.resolver, b.allowHttp, b.allowPrivateAddresses),
            new WebhookRequests(name, b.clock, requestTimeout),
            new ResponseClassifier(
                b.statusPolicy, b.clock, b.maxRetryAfter, connectTimeout, requestTimeout),
            MAX_RESPONSE_BODY_BYTES);
    log.info(
        "[{}] Webhook transport ready: {}, connectTimeout={}, requestTimeout={}, maxInFlight={},"
            + " maxInFlightPerEndpoint={}, maxRetryAfter={}, circuitOpenDuration={}, allowHttp={},"
            + " allowPrivateAddresses={}, httpClient={}, clock={}",
        name,
        b.singleEndpoint != null ? "endpoint=" + b.singleEndpoint : "router=" + b.router,
        connectTimeout == null ? "(client default)" : connectTimeout,
        requestTimeout,
        b.maxInFlight,
        maxInFlightPerEndpoint,
        b.maxRetryAfter,
        b.circuitOpenDuration,
        b.allowHttp,
        b.allowPrivateAddresses,
        ownClient ? "own (HTTP/1.1)" : "supplied",
        b.clock);
  }

  /**
   * Starts a transport that sends every event to one endpoint.
   *
   * @param url {@code https://…} ({@code http://} needs {@link Builder#allowHttp()})
   * @param secret {@code whsec_<base64 key>}
   * @return a builder
   * @throws OutboxConfigurationException if the URL or secret is malformed
   */
  public static Builder builder(URI url, String secret) {
    return builder(WebhookEndpoint.of(url, secret));
  }

  /**
   * Starts a transport that sends every event to one endpoint (several secrets, extra headers).
   *
   * @param endpoint the endpoint
   * @return a builder
   */
  public static Builder builder(WebhookEndpoint endpoint) {
    OutboxConfigurationException.requireNonNull(endpoint, "endpoint");
    return new Builder(WebhookRouter.to(endpoint), endpoint);
  }

  /**
   * Starts a transport that chooses the endpoint per event.
   *
   * @param router maps an event to its endpoint
   * @return a builder
   */
  public static Builder builder(WebhookRouter router) {
    return new Builder(OutboxConfigurationException.requireNonNull(router, "router"), null);
  }

  /**
   * Sends one event; same rules as {@link #sendBatch(List)}, including the circuit breaker.
   *
   * @param message the event and its attempt number
   * @return the outcome
   */
  @Override
  public SendResult send(OutboxMessage message) {
    return sendBatch(List.of(message)).get(0);
  }

  /**
   * Sends a batch concurrently (in-flight requests bounded per endpoint) and waits for every
   * answer. If the calling thread is interrupted, no further request starts and the call returns at
   * once with the interrupt flag set: events already answered keep their result (2xx: delivered),
   * every other event is unavailable (see the class comment).
   *
   * @param batch messages in claim order
   * @return one result per message, same order; never throws for a failed delivery
   */
  @Override
  public List<SendResult> sendBatch(List<OutboxMessage> batch) {
    Objects.requireNonNull(batch, "batch");
    if (batch.isEmpty()) {
      return List.of();
    }
    if (closed) {
      return closedResults(batch.size());
    }
    long start = System.nanoTime();
    List<SendResult> results = engine.send(batch);
    if (log.isDebugEnabled()) {
      int[] counts = new int[SendResult.Status.values().length];
      results.forEach(r -> counts[r.status().ordinal()]++);
      log.debug(
          "[{}] Sent batch of {} in {} ms: delivered={}, retry={}, reject={}, unavailable={}",
          name,
          batch.size(),
          (System.nanoTime() - start) / 1_000_000,
          counts[SendResult.Status.DELIVERED.ordinal()],
          counts[SendResult.Status.RETRY.ordinal()],
          counts[SendResult.Status.REJECT.ordinal()],
          counts[SendResult.Status.UNAVAILABLE.ordinal()]);
    }
    return results;
  }

  /**
   * Starts a batch as {@link #sendBatch(List)} sends it and returns at once: each event's future
   * completes as soon as its result is final — when its endpoint answered any request of the batch,
   * or else when every request to that endpoint ended (its outage verdict is then known) — so a
   * slow endpoint's requests do not hold back another endpoint's results. Cancelling any of the
   * futures stops the batch as an interrupt stops {@link #sendBatch(List)}: no new request starts,
   * the requests in flight are abandoned, and every future not completed yet gets unavailable.
   *
   * @param batch messages in claim order
   * @return one future per message, same order; each completes with a result, never exceptionally
   */
  @Override
  public List<CompletableFuture<SendResult>> sendBatchAsync(List<OutboxMessage> batch) {
    Objects.requireNonNull(batch, "batch");
    if (closed) {
      List<CompletableFuture<SendResult>> done = new ArrayList<>(batch.size());
      for (SendResult r : closedResults(batch.size())) {
        done.add(CompletableFuture.completedFuture(r));
      }
      return done;
    }
    return engine.start(batch);
  }

  private List<SendResult> closedResults(int size) {
    return new ArrayList<>(
        Collections.nCopies(
            size, SendResult.unavailable("webhook transport '" + name + "' is closed")));
  }

  /**
   * True: an endpoint that is down (connection failures, timeouts, 5xx, refused credentials) is
   * answered unavailable for that endpoint, an event's own failure retry or reject.
   */
  @Override
  public boolean classifiesFailures() {
    return true;
  }

  /**
   * Stops accepting batches (later calls answer unavailable) and shuts down the transport's thread
   * pool, which is also the executor of the HTTP client if the transport created it. A client
   * passed to {@link Builder#httpClient} is left alone. Requests in flight complete.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    pool.shutdown();
    // Idle threads end at once; a request still in flight ends within its requestTimeout.
    threads.awaitEnded(Duration.ofSeconds(1));
    if (ownClient && client instanceof AutoCloseable) {
      // Java 21+: ends the client's selector thread now instead of when the client is collected,
      // so it no longer pins a web application's class loader after undeploy.
      try {
        ((AutoCloseable) client).close();
      } catch (Exception e) {
        log.debug("[{}] closing the HTTP client failed", name, e);
      }
    }
    log.info("[{}] Webhook transport closed", name);
  }

  /** Shows the name and settings; never secrets. */
  @Override
  public String toString() {
    return "WebhookTransport[" + name + ", requestTimeout=" + requestTimeout + "]";
  }

  /** Configures a {@link WebhookTransport}; each option is validated where it is set. */
  public static final class Builder {
    private final WebhookRouter router;
    private final WebhookEndpoint singleEndpoint;
    private String name = DEFAULT_NAME;
    private Duration connectTimeout;
    private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
    private int maxInFlight = DEFAULT_MAX_IN_FLIGHT;
    private int maxInFlightPerEndpoint = DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT;
    private Duration maxRetryAfter = DEFAULT_MAX_RETRY_AFTER;
    private WebhookStatusPolicy statusPolicy = WebhookStatusPolicy.STANDARD;
    private Duration circuitOpenDuration = DEFAULT_CIRCUIT_OPEN_DURATION;
    private Clock clock = Clock.systemUTC();
    private AddressResolver resolver = AddressResolver.system();
    private HttpClient httpClient;
    private ThreadFactory threadFactory;
    private boolean allowHttp;
    private boolean allowPrivateAddresses;

    private Builder(WebhookRouter router, WebhookEndpoint singleEndpoint) {
      this.router = router;
      this.singleEndpoint = singleEndpoint;
    }

    /**
     * Takes the threads that send requests (and, for the transport's own HTTP client, run its
     * completions) from this factory, e.g. a Java EE container's {@code ManagedThreadFactory}. The
     * JDK's {@code HttpClient} also runs one selector thread of its own, which no factory can
     * supply; it runs JDK code only and ends once the closed transport's client is collected.
     *
     * @param threadFactory the factory; default: daemon threads named {@code
     *     outboxkit-<name>-http-<n>}
     * @return this builder
     */
    public Builder threadFactory(ThreadFactory threadFactory) {
      this.threadFactory =
          OutboxConfigurationException.requireNonNull(threadFactory, "threadFactory");
      return this;
    }

    /**
     * Names the transport in logs and thread names; {@value #DEFAULT_NAME} unless set.
     *
     * @param name {@value OutboxConfigurationException#NAME_RULE}
     * @return this builder
     */
    public Builder name(String name) {
      this.name = OutboxConfigurationException.checkName(name);
      return this;
    }

    /**
     * Time allowed to establish a connection (TCP and TLS); {@link #DEFAULT_CONNECT_TIMEOUT} unless
     * set. Only for the transport's own HTTP client: set it on a client passed to {@link
     * #httpClient}.
     *
     * @param timeout 1 ms to 5 minutes
     * @return this builder
     */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = timeout("connectTimeout", timeout);
      return this;
    }

    /**
     * Time allowed per request until the status and headers arrive (connecting included); {@link
     * #DEFAULT_REQUEST_TIMEOUT} unless set. A request that takes longer is retried: the endpoint
     * may have processed it, so receivers must deduplicate on {@code webhook-id}.
     *
     * @param timeout 1 ms to 5 minutes
     * @return this builder
     */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = timeout("requestTimeout", timeout);
      return this;
    }

    /**
     * Most requests in flight within one batch, across all endpoints (each one occupies a thread of
     * the transport's pool while it waits); {@value #DEFAULT_MAX_IN_FLIGHT} unless set.
     *
     * @param max 1 to 1024
     * @return this builder
     */
    public Builder maxInFlight(int max) {
      if (max < 1 || max > 1024) {
        throw new OutboxConfigurationException(
            "maxInFlight must be between 1 and 1024, was " + max);
      }
      this.maxInFlight = max;
      return this;
    }

    /**
     * Most requests in flight to one endpoint within one batch; {@value
     * #DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT} unless set, and never more than {@link #maxInFlight}.
     *
     * @param max 1 to 256
     * @return this builder
     */
    public Builder maxInFlightPerEndpoint(int max) {
      if (max < 1 || max > 256) {
        throw new OutboxConfigurationException(
            "maxInFlightPerEndpoint must be between 1 and 256, was " + max);
      }
      this.maxInFlightPerEndpoint = max;
      return this;
    }

    /**
     * How answers are read, status by status; {@link WebhookStatusPolicy#STANDARD} unless set (only
     * 2xx delivers; 401/403 are the endpoint's outage, 404 and 5xx its failures, 410 rejects, every
     * other status is retried).
     *
     * @param policy status to verdict, e.g. one that rejects a 422 your receiver never accepts
     * @return this builder
     */
    public Builder statusPolicy(WebhookStatusPolicy policy) {
      this.statusPolicy = OutboxConfigurationException.requireNonNull(policy, "statusPolicy");
      return this;
    }

    /**
     * Longest {@code Retry-After} honoured (longer ones are cut to it); {@link
     * #DEFAULT_MAX_RETRY_AFTER} unless set.
     *
     * @param max at least 1 second
     * @return this builder
     */
    public Builder maxRetryAfter(Duration max) {
      OutboxConfigurationException.requireNonNull(max, "maxRetryAfter");
      if (max.getSeconds() < 1) {
        throw new OutboxConfigurationException(
            "maxRetryAfter must be at least 1 second, was " + max);
      }
      this.maxRetryAfter = max;
      return this;
    }

    /**
     * How long an endpoint that failed a whole batch is left alone before one probe request; {@link
     * #DEFAULT_CIRCUIT_OPEN_DURATION} unless set. A 503's {@code Retry-After} can extend it, up to
     * {@link #maxRetryAfter}.
     *
     * @param duration at least 1 ms
     * @return this builder
     */
    public Builder circuitOpenDuration(Duration duration) {
      OutboxConfigurationException.requireNonNull(duration, "circuitOpenDuration");
      if (duration.isNegative() || duration.isZero()) {
        throw new OutboxConfigurationException(
            "circuitOpenDuration must be positive, was " + duration);
      }
      this.circuitOpenDuration = duration;
      return this;
    }

    /**
     * The clock for {@code webhook-timestamp}, {@code Retry-After} dates and the circuit breaker;
     * the system UTC clock unless set.
     *
     * @param clock any clock
     * @return this builder
     */
    public Builder clock(Clock clock) {
      this.clock = OutboxConfigurationException.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Resolves endpoint hosts for the address check; {@link AddressResolver#system()} unless set.
     *
     * @param resolver the resolver
     * @return this builder
     */
    public Builder resolver(AddressResolver resolver) {
      this.resolver = OutboxConfigurationException.requireNonNull(resolver, "resolver");
      return this;
    }

    /**
     * Sends through this client instead of one the transport builds (e.g. for a custom {@code
     * SSLContext}, proxy or HTTP version). It must not follow redirects, and it is not closed by
     * {@link WebhookTransport#close()}. Its connect timeout applies; set one.
     *
     * @param client a client built with {@code followRedirects(HttpClient.Redirect.NEVER)}
     * @return this builder
     */
    public Builder httpClient(HttpClient client) {
      OutboxConfigurationException.requireNonNull(client, "httpClient");
      if (client.followRedirects() != HttpClient.Redirect.NEVER) {
        throw new OutboxConfigurationException(
            "the HttpClient follows redirects ("
                + client.followRedirects()
                + "); build it with followRedirects(HttpClient.Redirect.NEVER)");
      }
      this.httpClient = client;
      return this;
    }

    /**
     * Permits plain {@code http://} endpoints. Off by default: without TLS the payload and the
     * signature travel in clear, and a network attacker can replay them.
     *
     * @return this builder
     */
    public Builder allowHttp() {
      this.allowHttp = true;
      return this;
    }

    /**
     * Permits endpoints that resolve to loopback, private, link-local, unique-local and other
     * non-public addresses (tests, in-cluster receivers). Cloud metadata addresses stay refused.
     * Off by default, so that a URL chosen by a tenant cannot reach internal services.
     *
     * @return this builder
     */
    public Builder allowPrivateAddresses() {
      this.allowPrivateAddresses = true;
      return this;
    }

    /**
     * Builds the transport and logs its settings (never secrets) at INFO.
     *
     * @return the transport
     * @throws OutboxConfigurationException if options contradict each other
     */
    public WebhookTransport build() {
      if (httpClient != null && connectTimeout != null) {
        throw new OutboxConfigurationException(
            "connectTimeout applies to the transport's own HttpClient only; set the connect"
                + " timeout on the HttpClient passed to httpClient(...)");
      }
      if (singleEndpoint != null
          && !allowHttp
          && !singleEndpoint.url().getScheme().equalsIgnoreCase("https")) {
        throw new OutboxConfigurationException(
            "webhook endpoint "
                + Urls.display(singleEndpoint.url())
                + " uses plain http: use https, or call allowHttp()");
      }
      return new WebhookTransport(this);
    }

    private static Duration timeout(String option, Duration timeout) {
      OutboxConfigurationException.requireNonNull(timeout, option);
      if (timeout.toMillis() < 1 || timeout.compareTo(Duration.ofMinutes(5)) > 0) {
        throw new OutboxConfigurationException(
            option + " must be between 1 ms and 5 minutes, was " + timeout);
      }
      return timeout;
    }
  }
}
