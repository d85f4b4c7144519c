package dev.outboxkit.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.SendResult;
import dev.outboxkit.jdbc.CancelOutcome;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.testing.RecordingTransport;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.MutableClock;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.TestDatabases;
import dev.outboxkit.testkit.TestFlavors;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link OutboxMetrics} on a real relay and database: after a drain with a retry and a DEAD event
 * the meters show exactly what happened, and the backlog gauges follow the table at the pace of the
 * snapshot interval, not of the gauge reads.
 */
@ParameterizedClass(name = "{0}", allowZeroInvocations = true)
@MethodSource("flavors")
class OutboxMetricsContractTest {
  private static final Duration INTERVAL = Duration.ofSeconds(10);

  private TestDatabase db;
  private DataSource ds;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final MutableClock clock = new MutableClock();

  @Parameter private Flavor flavor;

  /** The in-memory database and one real server: the meters are the same code on every database. */
  static List<Flavor> flavors() {
    return TestFlavors.of(Flavor.H2, Flavor.POSTGRES);
  }

  @BeforeEach
  void createDatabase() throws Exception {
    db = TestDatabases.create(flavor, getClass().getSimpleName());
    ds = db.dataSource();
    try (Connection c = ds.getConnection()) {
      OutboxSchema.create(c);
    }
  }

  @AfterEach
  void dropDatabase() {
    if (db != null) {
      db.close();
    }
    registry.close();
  }

  private List<OutboxEvent> append(String... aggregateIds) throws Exception {
    List<OutboxEvent> events = new ArrayList<>();
    for (String id : aggregateIds) {
      events.add(OutboxEvent.builder("Order", id, "OrderPlaced").payload("{}").build());
    }
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      Outbox.appendAll(c, events);
      c.commit();
    }
    return events;
  }

  /** Retries {@code flaky} once (503), rejects {@code poison} (400), delivers everything else. */
  static RecordingTransport retryOnceAndReject(String flaky, String poison) {
    AtomicInteger flakyTries = new AtomicInteger();
    return new RecordingTransport()
        .respondWith(
            m -> {
              String id = m.event().id().toString();
              if (id.equals(poison)) {
                return SendResult.reject("HTTP 400 from https://example.test/hooks");
              } else if (id.equals(flaky) && flakyTries.incrementAndGet() == 1) {
                return SendResult.retry("HTTP 503", Duration.ofMillis(1));
              }
              return SendResult.delivered();
            });
  }

  private double gauge(String name) {
    return registry.get(name).gauge().value();
  }

  private double count(String name) {
    return registry.get(name).counter().count();
  }

  @Test
  void an_abandoned_send_thread_is_counted() {
    OutboxMetrics metrics = OutboxMetrics.builder(registry).build();
    assertThat(count(OutboxMetrics.SEND_ABANDONED)).isZero();
    metrics.sendAbandoned(1);
    metrics.sendAbandoned(2);
    assertThat(count(OutboxMetrics.SEND_ABANDONED)).isEqualTo(2);
  }

  @Test
  void rounds_that_fail_on_the_database_are_counted() throws Exception {
    OutboxMetrics metrics = OutboxMetrics.builder(registry).build();
    try (OutboxRelay relay =
        OutboxRelay.builder(ds, new RecordingTransport())
            .table("table_not_created")
            .checkTableAtStart(false)
            .pollInterval(Duration.ofMillis(20))
            .listener(metrics)
            .build()) {
      relay.start();
      Await.until(
          () -> count(OutboxMetrics.DATABASE_FAILURES) >= 2,
          Duration.ofSeconds(30),
          () -> "two failed rounds counted, health " + relay.health());
    }
    assertThat(count(OutboxMetrics.TRANSPORT_MISBEHAVED)).isZero();
  }

  @Test
  void events_held_back_for_a_down_destination_are_counted_per_destination() {
    OutboxMetrics metrics = OutboxMetrics.builder(registry).tag("relay", "tenants").build();
    metrics.destinationUnavailable(
        "webhook endpoint https://a.example/hooks", 3, Duration.ofSeconds(1));
    metrics.destinationUnavailable(
        "webhook endpoint https://a.example/hooks", 2, Duration.ofSeconds(2));
    metrics.destinationUnavailable(
        "webhook endpoint https://b.example/hooks", 1, Duration.ofSeconds(1));

    assertThat(
            registry
                .get(OutboxMetrics.DESTINATION_UNAVAILABLE)
                .tag("destination", "webhook endpoint https://a.example/hooks")
                .tag("relay", "tenants")
                .counter()
                .count())
        .isEqualTo(5);
    assertThat(
            registry
                .get(OutboxMetrics.DESTINATION_UNAVAILABLE)
                .tag("destination", "webhook endpoint https://b.example/hooks")
                .counter()
                .count())
        .isEqualTo(1);
  }

  @Test
  void rows_purged_by_scheduled_retention_are_counted_per_table() {
    OutboxMetrics metrics = OutboxMetrics.builder(registry).build();
    metrics.purged(1000, 0, Duration.ofMillis(40));
    metrics.purged(500, 7, Duration.ofMillis(20));

    assertThat(registry.get(OutboxMetrics.PURGED).tag("table", "outbox").counter().count())
        .isEqualTo(1500);
    assertThat(registry.get(OutboxMetrics.PURGED).tag("table", "inbox").counter().count())
        .isEqualTo(7);
  }

  @Test
  void uncertain_sends_are_counted_apart_from_retries() {
    OutboxMetrics metrics = OutboxMetrics.builder(registry).build();
    OutboxEvent e = OutboxEvent.builder("Order", "1", "Placed").payload("{}").build();

    metrics.uncertain(e, 1, "no response from https://example.test/hooks within PT15S");
    metrics.retried(e, 1, "no response", Duration.ofSeconds(1));

    assertThat(count(OutboxMetrics.UNCERTAIN)).isEqualTo(1);
    assertThat(count(OutboxMetrics.RETRIED)).isEqualTo(1);
  }

  @Test
  void gauges_count_events_withdrawn_before_delivery() throws Exception {
    OutboxMetrics.builder(registry)
        .admin(OutboxAdmin.create(ds))
        .snapshotInterval(INTERVAL)
        .clock(clock)
        .build();
    OutboxEvent cancelled = append("to-cancel").get(0);
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < 3; i++) { // the last one supersedes the first two
        Outbox.append(
            c,
            OutboxEvent.builder("Customer", "42", "ProfileChanged")
                .supersedeKey("customer-42/profile")
                .payload("{}")
                .build());
      }
      assertThat(Outbox.cancel(c, cancelled.id())).isEqualTo(CancelOutcome.CANCELLED);
      c.commit();
    }

    assertThat(gauge(OutboxMetrics.PENDING)).isEqualTo(1);
    assertThat(gauge(OutboxMetrics.CANCELLED_ROWS)).isEqualTo(1);
    assertThat(gauge(OutboxMetrics.SUPERSEDED_ROWS)).isEqualTo(2);
  }

  @Test
  void meters_show_a_drain_with_a_retry_and_a_dead_event() throws Exception {
    OutboxMetrics metrics =
        OutboxMetrics.builder(registry)
            .admin(OutboxAdmin.create(ds))
            .snapshotInterval(INTERVAL)
            .clock(clock)
            .tag("relay", "metrics-test")
            .build();
    List<OutboxEvent> events = append("ok-1", "flaky", "poison", "ok-2", "ok-3");
    String flaky = events.get(1).id().toString();
    String poison = events.get(2).id().toString();
    RecordingTransport transport = retryOnceAndReject(flaky, poison);

    // Before the drain: the first gauge read takes a snapshot; the others reuse it.
    assertThat(gauge(OutboxMetrics.PENDING)).isEqualTo(5);
    assertThat(gauge(OutboxMetrics.DEAD_ROWS)).isZero();
    assertThat(
            registry.get(OutboxMetrics.OLDEST_PENDING_AGE).timeGauge().value(TimeUnit.MILLISECONDS))
        .isGreaterThanOrEqualTo(0);

    try (OutboxRelay relay =
        OutboxRelay.builder(ds, transport)
            .name("metrics")
            .ordered(false)
            .retryBackoff(Duration.ofMillis(1), Duration.ofMillis(5))
            .listener(metrics)
            .build()) {
      assertThat(relay.runOnce()).isEqualTo(5);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (count(OutboxMetrics.PUBLISHED) < 4) {
        assertThat(System.nanoTime()).as("retry delivered in time").isLessThan(deadline);
        if (relay.runOnce() == 0) {
          Thread.sleep(5); // the retry becomes available 1 ms after its ack, by the DB clock
        }
      }
    }

    assertThat(count(OutboxMetrics.PUBLISHED)).isEqualTo(4);
    assertThat(count(OutboxMetrics.RETRIED)).isEqualTo(1);
    assertThat(count(OutboxMetrics.DEAD)).isEqualTo(1);
    assertThat(count(OutboxMetrics.EXPIRED)).isZero();
    assertThat(count(OutboxMetrics.UNAVAILABLE)).isZero();
    assertThat(registry.get(OutboxMetrics.LAG).timer().count()).isEqualTo(4);
    assertThat(registry.get(OutboxMetrics.LAG).timer().max(TimeUnit.NANOSECONDS)).isPositive();
    long batches = registry.get(OutboxMetrics.CLAIM).timer().count();
    assertThat(batches).isGreaterThanOrEqualTo(2);
    assertThat(registry.get(OutboxMetrics.SEND).timer().count()).isEqualTo(batches);
    assertThat(registry.get(OutboxMetrics.ACK).timer().count()).isEqualTo(batches);
    assertThat(registry.get(OutboxMetrics.BATCH_SIZE).summary().totalAmount()).isEqualTo(6);
    assertThat(registry.get(OutboxMetrics.PUBLISHED).counter().getId().getTag("relay"))
        .isEqualTo("metrics-test");

    // Within the interval the gauges still show the cached snapshot: no query per read.
    assertThat(gauge(OutboxMetrics.PENDING)).isEqualTo(5);
    clock.advance(INTERVAL);
    assertThat(gauge(OutboxMetrics.PENDING)).isZero();
    assertThat(gauge(OutboxMetrics.IN_FLIGHT)).isZero();
    assertThat(gauge(OutboxMetrics.DEAD_ROWS)).isEqualTo(1);
    assertThat(
            registry.get(OutboxMetrics.OLDEST_PENDING_AGE).timeGauge().value(TimeUnit.MILLISECONDS))
        .isZero();
  }

  @Test
  void an_outage_counts_as_unavailable_and_burns_no_attempt() throws Exception {
    OutboxMetrics metrics = OutboxMetrics.builder(registry).build();
    append("a", "b");
    RecordingTransport transport =
        new RecordingTransport().respondWith(m -> SendResult.unavailable("connection refused"));

    try (OutboxRelay relay =
        OutboxRelay.builder(ds, transport).name("outage").listener(metrics).build()) {
      assertThat(relay.runOnce()).isEqualTo(2);
    }

    assertThat(count(OutboxMetrics.UNAVAILABLE)).isEqualTo(1);
    assertThat(count(OutboxMetrics.RETRIED)).isZero();
    assertThat(count(OutboxMetrics.DEAD)).isZero();
    assertThat(OutboxAdmin.create(ds).snapshot().pending()).isEqualTo(2);
    // Without an admin there are no gauges, only the relay's meters.
    assertThat(registry.find(OutboxMetrics.PENDING).gauge()).isNull();
  }
}
