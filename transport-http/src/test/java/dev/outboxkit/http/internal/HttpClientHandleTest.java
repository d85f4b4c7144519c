package dev.outboxkit.http.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.testkit.Await;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.Test;

/** The own client's promises, a supplied client used as given, and what closing leaves behind. */
class HttpClientHandleTest {

  @Test
  void builds_its_own_client_for_http_1_1_that_never_follows_redirects_and_runs_on_the_pool() {
    HttpClientHandle handle = new HttpClientHandle("t", null, Duration.ofSeconds(3), null);
    try {
      HttpClient client = handle.client();

      assertThat(client.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
      assertThat(client.followRedirects()).isEqualTo(HttpClient.Redirect.NEVER);
      assertThat(client.connectTimeout()).contains(Duration.ofSeconds(3));
      assertThat(client.executor()).containsSame(handle.pool());
      assertThat(handle.connectTimeout()).isEqualTo(Duration.ofSeconds(3));
      assertThat(handle.describe()).isEqualTo("own (HTTP/1.1)");
    } finally {
      handle.close();
    }
  }

  @Test
  void the_jdks_client_thread_never_carries_the_builders_class_loader_and_ends_after_close() {
    // Stands for a web application's class loader, the context loader of the thread that builds.
    ClassLoader webapp = new URLClassLoader(new URL[0], getClass().getClassLoader());
    Set<Thread> before = selectorThreads();
    Thread current = Thread.currentThread();
    ClassLoader context = current.getContextClassLoader();
    HttpClientHandle handle;
    current.setContextClassLoader(webapp);
    try {
      handle = new HttpClientHandle("t", null, Duration.ofSeconds(3), null);
    } finally {
      current.setContextClassLoader(context);
    }
    Set<Thread> started = selectorThreads();
    started.removeAll(before);

    // What a container's leak check looks at: no thread of the client holds the app's loader.
    assertThat(started)
        .isNotEmpty()
        .allSatisfy(t -> assertThat(t.getContextClassLoader()).isNotSameAs(webapp));
    handle.close();
    handle = null; // its last reference: the closed client can be collected
    // Java 21+: close() ends it; before, the JDK ends it once the closed client is collected.
    Await.until(
        () -> {
          System.gc();
          return started.stream().noneMatch(Thread::isAlive);
        },
        Duration.ofSeconds(60),
        () -> "the client's selector thread ended: " + started);
  }

  private static Set<Thread> selectorThreads() {
    Set<Thread> threads = new HashSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("HttpClient-") && t.getName().endsWith("-SelectorManager")) {
        threads.add(t);
      }
    }
    return threads;
  }

  @Test
  void uses_a_supplied_client_as_it_is_and_reports_its_connect_timeout() {
    HttpClient supplied =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(7))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    HttpClientHandle handle = new HttpClientHandle("t", supplied, Duration.ofSeconds(3), null);
    handle.close();

    assertThat(handle.client()).isSameAs(supplied);
    assertThat(handle.connectTimeout()).isEqualTo(Duration.ofSeconds(7));
    assertThat(handle.describe()).isEqualTo("supplied");
  }

  @Test
  void refuses_a_supplied_client_that_follows_redirects() {
    HttpClient follows =
        HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL).build();
    HttpClient never = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    assertThatThrownBy(() -> HttpClientHandle.requireNoRedirects(follows))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessage(
            "the HttpClient follows redirects (NORMAL); build it with"
                + " followRedirects(HttpClient.Redirect.NEVER)");
    assertThat(HttpClientHandle.requireNoRedirects(never)).isSameAs(never);
  }

  @Test
  void a_supplied_client_without_a_connect_timeout_leaves_it_unset() {
    HttpClient supplied =
        HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    HttpClientHandle handle = new HttpClientHandle("t", supplied, Duration.ofSeconds(3), null);
    handle.close();

    assertThat(handle.connectTimeout()).isNull();
  }

  @Test
  void its_own_threads_are_named_daemons_and_none_outlives_close() throws Exception {
    HttpClientHandle handle = new HttpClientHandle("census", null, Duration.ofSeconds(3), null);
    Thread worker = handle.pool().submit(Thread::currentThread).get();

    assertThat(worker.getName()).startsWith("outboxkit-census-http-");
    assertThat(worker.isDaemon()).isTrue();

    handle.close();

    assertThat(handle.pool().isShutdown()).isTrue();
    assertThat(worker.isAlive()).as("pool thread alive after close()").isFalse();
  }

  @Test
  void takes_its_threads_from_the_users_factory() throws Exception {
    List<Thread> made = new CopyOnWriteArrayList<>();
    ThreadFactory factory =
        r -> {
          Thread t = new Thread(r, "managed-" + made.size());
          made.add(t);
          return t;
        };
    HttpClientHandle handle = new HttpClientHandle("t", null, Duration.ofSeconds(3), factory);
    Thread worker = handle.pool().submit(Thread::currentThread).get();
    handle.close();

    assertThat(made).contains(worker);
    assertThat(worker.isAlive()).isFalse();
  }
}
