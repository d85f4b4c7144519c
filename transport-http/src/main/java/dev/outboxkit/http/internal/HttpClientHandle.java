package dev.outboxkit.http.internal;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.internal.OwnedThreads;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP client a webhook transport sends through, its own or the user's, and the thread pool its
 * requests wait on: made once when the transport is built, closed once with it. Kept apart from the
 * transport so that what its own client promises (HTTP/1.1, redirects never followed, the connect
 * timeout, completions on the transport's threads) and what closing owes the container (no thread
 * left running, a supplied client left alone) are stated in one place.
 */
public final class HttpClientHandle {
  private static final Logger log = LoggerFactory.getLogger("dev.outboxkit.http.WebhookTransport");

  private final String name;
  private final OwnedThreads threads;
  private final ExecutorService pool;
  private final HttpClient client;
  private final boolean owned;
  private final Duration connectTimeout;

  /**
   * @param name the transport's name, in thread names and log lines
   * @param supplied the client passed to the builder, used as it is; or null to build one
   * @param connectTimeout the connect timeout of the client built here; unused with a supplied one
   * @param threadFactory the factory passed to the builder, or null for daemon threads of our own
   */
  public HttpClientHandle(
      String name, HttpClient supplied, Duration connectTimeout, ThreadFactory threadFactory) {
    this.name = name;
    this.threads =
        new OwnedThreads(threadFactory, "outboxkit-" + name + "-", "the webhook transport");
    // Idle threads die after a minute; busy ones are bounded by maxInFlight per batch.
    this.pool = Executors.newCachedThreadPool(threads.factory("http"));
    this.owned = supplied == null;
    if (owned) {
      this.connectTimeout = connectTimeout;
      // HTTP/1.1: over plain http the JDK's HTTP/2 default adds an h2c upgrade offer to every
      // request, which receivers rarely take and some proxies mishandle. Pass a client for h2.
      this.client =
          detached(
              HttpClient.newBuilder()
                  .version(HttpClient.Version.HTTP_1_1)
                  .connectTimeout(connectTimeout)
                  .followRedirects(HttpClient.Redirect.NEVER)
                  .executor(pool));
    } else {
      this.client = supplied;
      this.connectTimeout = supplied.connectTimeout().orElse(null);
    }
  }

  /**
   * Builds the client with the system class loader as the building thread's context class loader.
   * The JDK starts the client's selector thread here, and that thread inherits it: built on a web
   * application's thread, it would otherwise carry the application's class loader, which a
   * container reports as a leak on undeploy (Tomcat's "failed to stop it"). The thread ends when
   * the client is closed (Java 21+) or, before Java 21, once the closed client is collected.
   */
  private static HttpClient detached(HttpClient.Builder builder) {
    Thread current = Thread.currentThread();
    ClassLoader context = current.getContextClassLoader();
    current.setContextClassLoader(ClassLoader.getSystemClassLoader());
    try {
      return builder.build();
    } finally {
      current.setContextClassLoader(context);
    }
  }

  /**
   * The one demand on a supplied client: a redirect would take a signed request to a host the
   * address check never saw, so it must not follow any.
   *
   * @throws OutboxConfigurationException if it follows redirects
   */
  public static HttpClient requireNoRedirects(HttpClient client) {
    if (client.followRedirects() != HttpClient.Redirect.NEVER) {
      throw new OutboxConfigurationException(
          "the HttpClient follows redirects ("
              + client.followRedirects()
              + "); build it with followRedirects(HttpClient.Redirect.NEVER)");
    }
    return client;
  }

  /** {@return the client requests go through} */
  public HttpClient client() {
    return client;
  }

  /** {@return the pool whose threads wait for the requests (and run the own client's work)} */
  public ExecutorService pool() {
    return pool;
  }

  /** {@return the connect timeout in force, or null when a supplied client leaves it unset} */
  public Duration connectTimeout() {
    return connectTimeout;
  }

  /** {@return how the settings log line names the client} */
  public String describe() {
    return owned ? "own (HTTP/1.1)" : "supplied";
  }

  /**
   * Shuts the pool down, waits a moment for its threads to end, and closes the client if it is the
   * transport's own. A supplied client is left open: its owner closes it.
   */
  public void close() {
    pool.shutdown();
    // Idle threads end at once; a request still in flight ends within its requestTimeout.
    try {
      threads.awaitEnded(Duration.ofSeconds(1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (owned && client instanceof AutoCloseable) {
      // Java 21+: ends the client's selector thread now instead of when the client is collected,
      // so it no longer pins a web application's class loader after undeploy.
      try {
        ((AutoCloseable) client).close();
      } catch (Exception e) {
        log.debug("[{}] closing the HTTP client failed", name, e);
      }
    }
  }
}
