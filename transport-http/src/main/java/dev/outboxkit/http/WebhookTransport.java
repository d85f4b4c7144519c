package dev.outboxkit.http;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import dev.outboxkit.http.internal.DestinationGuard;
import dev.outboxkit.http.internal.HttpClientHandle;
import dev.outboxkit.http.internal.Options;
import dev.outboxkit.http.internal.ResponseClassifier;
import dev.outboxkit.http.internal.Urls;
import dev.outboxkit.http.internal.WebhookEngine;
import dev.outboxkit.http.internal.WebhookRequests;
import dev.outboxkit.internal.TransportGate;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
 * <p><b>Request.</b> The body is the event payload, byte for byte, with the event's content type.
 * {@link WebhookHeaders} lists the headers in the order sent, and which event headers are skipped
 * so that an event cannot forge a signature. Every attempt is signed afresh, with the same {@code
 * webhook-id} (the event id, for deduplication).
 *
 * <p><b>Outcome.</b> Each event gets its own result. With {@link WebhookStatusPolicy#STANDARD}
 * (what Standard Webhooks senders do; {@link Builder#statusPolicy} replaces it) a 2xx is delivered;
 * an outage of the endpoint (credentials refused, or every request of the batch to it failed with a
 * 404, a 5xx or no answer) makes its events unavailable for that endpoint only, uncharged, and
 * opens its circuit for {@link Builder#circuitOpenDuration}; a host that resolves to a refused
 * address is that endpoint's outage as well; 410 Gone and a refused scheme reject; everything else
 * retries, after the {@code Retry-After} asked for (at most {@link Builder#maxRetryAfter}). The
 * events of a batch are sent concurrently, in no promised order. Only {@code https} and public
 * addresses are sent to, unless allowed; redirects are never followed.
 *
 * <p>The {@linkplain dev.outboxkit.http package documentation} tables every outcome and describes
 * interrupts, the circuit breaker, concurrency and the security checks in full.
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
  private final HttpClientHandle http;
  private final Duration requestTimeout;
  private final WebhookEngine engine;
  private final TransportGate gate;

  private WebhookTransport(Builder b) {
    this.name = b.name;
    this.gate = new TransportGate("Webhook transport '" + name + "'");
    this.requestTimeout = b.requestTimeout;
    this.http =
        new HttpClientHandle(
            name,
            b.httpClient,
            b.connectTimeout != null ? b.connectTimeout : DEFAULT_CONNECT_TIMEOUT,
            b.threadFactory);
    Duration connectTimeout = http.connectTimeout();
    int maxInFlightPerEndpoint = Math.min(b.maxInFlightPerEndpoint, b.maxInFlight);
    this.engine =
        new WebhookEngine(
            name,
            b.router,
            http,
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
        http.describe(),
        b.clock);
  }

  /**
   * Starts a transport that sends every event to one endpoint.
   *
   * @param url {@code https://…} ({@code http://} needs {@link Builder#allowHttp()})
   * @param secret {@code whsec_<base64 key>}
   * @return a builder
   * @throws OutboxConfigurationException if the URL or secret is malformed, or the secret's key is
   *     shorter than {@link WebhookSigner#MIN_SECRET_BYTES} bytes
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
    return gate.sendOne(message, this::sendBatch);
  }

  /**
   * Sends a batch concurrently (in-flight requests bounded per endpoint) and waits for every
   * answer. If the calling thread is interrupted, no further request starts and the call returns at
   * once with the interrupt flag set: events already answered keep their result (2xx: delivered),
   * every other event is unavailable, uncharged (the {@linkplain dev.outboxkit.http package
   * documentation} says which reason each gets, and what an endpoint may still have received).
   *
   * @param batch messages in claim order
   * @return one result per message, same order; never throws for a failed delivery
   */
  @Override
  public List<SendResult> sendBatch(List<OutboxMessage> batch) {
    return gate.send(batch, engine::send);
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
    return gate.start(batch, engine::start);
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
    if (!gate.close()) {
      return;
    }
    http.close();
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
     * supply; it runs JDK code only and ends at {@link WebhookTransport#close()} on Java 21+ (on
     * older JDKs once the closed transport's client is collected). It is started with the system
     * class loader as its context class loader, never a web application's, so a container's leak
     * check on undeploy has nothing to report (Tomcat 9's, tested). Work the client still hands off
     * after {@code close()} has shut the pool down (its clean-up, its internal work for a request
     * still in flight) runs, by the JDK's own fallback, in the JVM's common {@code ForkJoinPool}:
     * JDK code only, as the transport's own work stays on the pool's threads.
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
      this.connectTimeout = Options.timeout("connectTimeout", timeout);
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
      this.requestTimeout = Options.timeout("requestTimeout", timeout);
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
      this.maxInFlight = Options.between("maxInFlight", max, 1, 1024);
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
      this.maxInFlightPerEndpoint = Options.between("maxInFlightPerEndpoint", max, 1, 256);
      return this;
    }

    /**
     * How answers are read, status by status; {@link WebhookStatusPolicy#STANDARD} unless set (the
     * package documentation tables it).
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
      this.maxRetryAfter = Options.atLeastOneSecond("maxRetryAfter", max);
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
      this.circuitOpenDuration = Options.positive("circuitOpenDuration", duration);
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
     * SSLContext}, proxy or HTTP/2: the transport's own client speaks HTTP/1.1). It must not follow
     * redirects, and it is not closed by {@link WebhookTransport#close()}. Its connect timeout
     * applies; set one.
     *
     * @param client a client built with {@code followRedirects(HttpClient.Redirect.NEVER)}
     * @return this builder
     */
    public Builder httpClient(HttpClient client) {
      OutboxConfigurationException.requireNonNull(client, "httpClient");
      this.httpClient = HttpClientHandle.requireNoRedirects(client);
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
     * Permits endpoints that resolve to non-public addresses (tests, in-cluster receivers):
     * loopback, link-local, private (site-local), unique-local (fc00::/7), any-local, multicast,
     * shared (100.64.0.0/10) or reserved. Cloud metadata addresses (169.254.169.254, fd00:ec2::254,
     * …) stay refused. Off by default, so that a URL chosen by a tenant cannot reach internal
     * services; a host is refused when any of its addresses is not public.
     *
     * <p>Without it, a known endpoint on such an address (an IP literal or {@code localhost}) fails
     * {@link #build()}; a host that resolves to one at send time is that endpoint's outage: its
     * events are answered unavailable for that endpoint (held, no attempt charged, never DEAD), an
     * ERROR is logged once until the address check passes again, and the check is repeated each
     * time the relay retries them.
     *
     * @return this builder
     */
    public Builder allowPrivateAddresses() {
      this.allowPrivateAddresses = true;
      return this;
    }

    /**
     * Builds the transport and logs its settings (never secrets) at INFO. Endpoints known now (the
     * single endpoint, or those of {@link WebhookRouter#to} and {@link
     * WebhookRouter#byDestination}) are checked at once: plain {@code http} without {@link
     * #allowHttp()}, and a host that is an IP literal or {@code localhost} on an address the
     * transport refuses, fail here rather than holding every event. Other hosts are resolved and
     * checked before each batch.
     *
     * @return the transport
     * @throws OutboxConfigurationException if options contradict each other, or a known endpoint is
     *     refused (the message names it and the option to set)
     */
    public WebhookTransport build() {
      if (httpClient != null && connectTimeout != null) {
        throw new OutboxConfigurationException(
            "connectTimeout applies to the transport's own HttpClient only; set the connect"
                + " timeout on the HttpClient passed to httpClient(...)");
      }
      for (WebhookEndpoint endpoint : knownEndpoints()) {
        if (!DestinationGuard.schemeAllowed(endpoint.url(), allowHttp)) {
          throw new OutboxConfigurationException(
              "webhook endpoint "
                  + Urls.display(endpoint.url())
                  + " uses plain http: use https, or call allowHttp()");
        }
        String refusal =
            DestinationGuard.refusalKnownAtBuild(endpoint.url(), allowPrivateAddresses);
        if (refusal != null) {
          throw new OutboxConfigurationException(refusal);
        }
      }
      return new WebhookTransport(this);
    }

    /** The endpoints known before any event: the single one, or a fixed router's. */
    private List<WebhookEndpoint> knownEndpoints() {
      if (singleEndpoint != null) {
        return List.of(singleEndpoint);
      }
      return router instanceof FixedRouter ? ((FixedRouter) router).endpoints() : List.of();
    }
  }
}
