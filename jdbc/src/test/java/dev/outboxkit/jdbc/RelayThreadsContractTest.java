package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.SendResult;
import dev.outboxkit.testing.RecordingTransport;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestFlavors;
import dev.outboxkit.testkit.ThreadCensus;
import dev.outboxkit.testkit.ThreadCensus.CountingFactory;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Where the relay's threads come from: with a {@code threadFactory} every thread it starts is the
 * factory's (a Java EE container's managed threads), without one they are its own named daemon
 * threads; either way none outlives {@code close()}. On PostgreSQL the notification listener runs
 * too.
 */
@ParameterizedClass(name = "{0}", allowZeroInvocations = true)
@MethodSource("flavors")
class RelayThreadsContractTest extends DatabaseTest {
  /** Not MySQL: it runs the same driver, so the same driver threads, as MariaDB. */
  static List<Flavor> flavors() {
    return TestFlavors.of(Flavor.POSTGRES, Flavor.MARIADB, Flavor.H2);
  }

  /** Threads that the pool and the drivers start for themselves, not the relay. */
  private static ThreadCensus census() {
    return ThreadCensus.take(
        "HikariPool", "PostgreSQL-JDBC-Cleaner", "mysql-cj-abandoned-connection-cleanup");
  }

  private boolean listens() {
    return flavor() == Flavor.POSTGRES;
  }

  private void append(int count) throws Exception {
    try (Connection c = transaction()) {
      for (int i = 0; i < count; i++) {
        Outbox.append(
            c, OutboxEvent.builder("Order", "o" + (i % 10), "OrderPlaced").payload("{}").build());
      }
      c.commit();
    }
  }

  private OutboxRelay.Builder relay(RecordingTransport transport) {
    return OutboxRelay.builder(ds, transport)
        .name("census")
        .batchSize(20)
        .pollInterval(Duration.ofMillis(20))
        .listenForNotifications(listens())
        .shutdownTimeout(Duration.ofSeconds(5));
  }

  private void awaitPublished(long expected) {
    Await.until(
        () -> OutboxAdmin.create(ds).count(EventStatus.PUBLISHED) >= expected,
        Duration.ofSeconds(60),
        () -> expected + " events published");
  }

  @Test
  void with_a_thread_factory_every_thread_the_relay_starts_is_the_factorys_and_none_outlives_close()
      throws Exception {
    append(200);
    CountingFactory factory = new CountingFactory();
    Set<Thread> sendThreads = ConcurrentHashMap.newKeySet();
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m -> {
                  sendThreads.add(Thread.currentThread());
                  return SendResult.delivered();
                });
    ThreadCensus census = census();

    List<Thread> duringRun;
    try (OutboxRelay relay = relay(transport).threadFactory(factory).build()) {
      relay.start();
      awaitPublished(200);
      append(20);
      assertThat(relay.drain()).isGreaterThanOrEqualTo(0); // the caller's thread drives it too
      awaitPublished(220);
      duringRun = census.startedSince();
    }

    assertThat(duringRun).as("threads started during the run").isNotEmpty();
    assertThat(factory.created()).containsAll(duringRun);
    assertThat(factory.created()).containsAll(sendThreads);
    // worker, at least one sender, and on PostgreSQL the notification listener
    assertThat(factory.created()).hasSizeGreaterThanOrEqualTo(listens() ? 3 : 2);
    assertThat(factory.alive()).isEmpty();
    assertThat(census.startedSince()).as("threads left after close()").isEmpty();
    System.out.printf(
        "thread census, %s with a factory: %d threads made by it, %d running at the sample, 0"
            + " after close()%n",
        "relay on " + flavor(), factory.created().size(), duringRun.size());
  }

  @Test
  void without_a_factory_the_relay_names_its_own_daemon_threads_and_none_outlives_close()
      throws Exception {
    append(100);
    RecordingTransport transport = new RecordingTransport();
    ThreadCensus census = census();

    List<Thread> duringRun;
    try (OutboxRelay relay = relay(transport).build()) {
      relay.start();
      awaitPublished(100);
      duringRun = census.startedSince();
    }

    assertThat(duringRun)
        .isNotEmpty()
        .allSatisfy(
            t -> {
              assertThat(t.getName()).startsWith("outboxkit-census-");
              assertThat(t.isDaemon()).isTrue();
            });
    assertThat(duringRun)
        .extracting(Thread::getName)
        .anyMatch(n -> n.startsWith("outboxkit-census-worker-"))
        .anyMatch(n -> n.startsWith("outboxkit-census-send-"));
    if (listens()) {
      assertThat(duringRun)
          .extracting(Thread::getName)
          .anyMatch(n -> n.startsWith("outboxkit-census-listen-"));
    }
    assertThat(census.startedSince()).as("threads left after close()").isEmpty();
    System.out.printf(
        "thread census, %s without a factory: %d own threads %s, 0 after close()%n",
        "relay on " + flavor(),
        duringRun.size(),
        duringRun.stream().map(Thread::getName).sorted().toList());
  }

  @Test
  void a_relay_driven_by_the_containers_scheduler_sends_on_managed_threads_within_sendTimeout()
      throws Exception {
    append(1);
    CountingFactory factory = new CountingFactory();
    CountDownLatch release = new CountDownLatch(1);
    List<Thread> sendThreads = new CopyOnWriteArrayList<>();
    RecordingTransport hanging =
        new RecordingTransport()
            .respondWith(
                m -> {
                  sendThreads.add(Thread.currentThread());
                  try {
                    release.await(); // a broker that never answers
                    return SendResult.delivered();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return SendResult.unavailable("interrupted before the broker answered");
                  }
                });
    // The container's scheduler thread (an EJB @Schedule method's), not the relay's.
    ExecutorService container = Executors.newSingleThreadExecutor(r -> new Thread(r, "ejb-timer"));
    try (OutboxRelay relay =
        relay(hanging)
            .listenForNotifications(false)
            .threadFactory(factory)
            .sendTimeout(Duration.ofMillis(300))
            .build()) {
      Future<Integer> tick = container.submit(relay::drain);
      int handled = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> tick.get());

      assertThat(handled)
          .as("the timed-out batch is handed back, not counted")
          .isLessThanOrEqualTo(1);
      assertThat(sendThreads).hasSize(1);
      assertThat(factory.created()).contains(sendThreads.get(0));
      try (Connection c = ds.getConnection();
          var s = c.createStatement();
          var rs = s.executeQuery("SELECT status, attempts FROM outbox_event")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString("status")).isEqualTo("PENDING");
        assertThat(rs.getInt("attempts")).as("a timeout is an outage: no attempt charged").isZero();
      }
    } finally {
      release.countDown();
      container.shutdownNow();
    }
    assertThat(factory.alive()).isEmpty();
  }

  @Test
  void a_factory_that_refuses_a_thread_leaves_the_relay_unstarted_and_says_so() {
    try (OutboxRelay relay =
        relay(new RecordingTransport())
            .listenForNotifications(false)
            .threadFactory(r -> null)
            .build()) {
      for (int attempt = 0; attempt < 2; attempt++) {
        assertThatThrownBy(relay::start)
            .isInstanceOf(RejectedExecutionException.class)
            .hasMessageContaining("threadFactory returned no thread");
      }
    }
  }
}
