package dev.outboxkit.http;

import static dev.outboxkit.http.Events.SECRET;
import static dev.outboxkit.http.Events.event;
import static dev.outboxkit.http.Events.firstAttempts;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.SendResult;
import dev.outboxkit.testkit.ThreadCensus;
import dev.outboxkit.testkit.ThreadCensus.CountingFactory;
import dev.outboxkit.testkit.http.HttpReceiver;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Where the transport's threads come from: with a {@code threadFactory} every thread it starts is
 * the factory's (a Java EE container's managed threads); without one they are its own named daemon
 * threads. None outlives {@code close()}. Left out of the count: the test receiver's threads, and
 * the JDK {@code HttpClient}'s selector thread and common-pool fallback, which the JDK uses for
 * itself (documented on {@link WebhookTransport.Builder#threadFactory}).
 */
class WebhookThreadsTest {
  private static final String[] NOT_OURS = {
    "HTTP-Dispatcher", // the test receiver's
    "pool-", // the test receiver's request threads
    "HttpClient-", // the JDK HttpClient's selector thread (JDK code, ends with its client)
    // The JDK's own fallback: a task its selector hands off after close() shut the transport's
    // pool down runs in the JVM's common pool (seen on JDK 25, where close() then also closes the
    // client, whose clean-up meets the shut-down pool).
    "ForkJoinPool.commonPool-worker-",
  };

  private HttpReceiver receiver;

  @BeforeEach
  void startReceiver() throws Exception {
    receiver = VerifyingReceiver.start(WebhookVerifier.builder().secret(SECRET).build());
  }

  @AfterEach
  void stopReceiver() {
    receiver.close();
  }

  private WebhookTransport.Builder transport() {
    return WebhookTransport.builder(WebhookEndpoint.of(receiver.uri("/hooks"), SECRET))
        .name("census")
        .allowHttp()
        .allowPrivateAddresses() // the receiver is on 127.0.0.1
        .requestTimeout(Duration.ofSeconds(5));
  }

  private static OutboxEvent[] events(int count) {
    OutboxEvent[] events = new OutboxEvent[count];
    for (int i = 0; i < count; i++) {
      events[i] = event("a" + (i % 4), "{\"n\":" + i + "}");
    }
    return events;
  }

  @Test
  void with_a_thread_factory_every_thread_the_transport_starts_is_the_factorys() {
    CountingFactory factory = new CountingFactory();
    ThreadCensus census = ThreadCensus.take(NOT_OURS);
    List<Thread> duringRun;
    try (WebhookTransport transport = transport().threadFactory(factory).build()) {
      assertThat(transport.sendBatch(firstAttempts(events(12))))
          .containsOnly(SendResult.delivered())
          .hasSize(12);
      duringRun = census.startedSince();
    }

    census.assertAllMadeBy(factory, duringRun, "webhook transport");
  }

  @Test
  void without_a_factory_the_transport_names_its_own_daemon_threads() {
    ThreadCensus census = ThreadCensus.take(NOT_OURS);
    List<Thread> duringRun;
    try (WebhookTransport transport = transport().build()) {
      assertThat(transport.sendBatch(firstAttempts(events(4))))
          .containsOnly(SendResult.delivered());
      duringRun = census.startedSince();
    }

    census.assertOwnDaemonThreads(duringRun, "outboxkit-census-http-", "webhook transport");
  }
}
