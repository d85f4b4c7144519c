package dev.outboxkit.micrometer;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.jdbc.RelayListener;
import dev.outboxkit.testing.RecordingTransport;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.TestDatabases;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Not a test: prints a sample of the snapshot, the listener events and the meters from a real run,
 * and the cost of {@link OutboxMetrics} on drain throughput (relay with no listener vs with the
 * metrics listener, interleaved rounds, same run). Asserts nothing and is not part of the normal
 * test run (Surefire only picks up {@code *Test} classes). Run it with:
 *
 * <pre>
 * mvn -pl micrometer test -Dtest=OutboxMetricsMeasurement -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 *
 * The output lands in {@code target/surefire-reports/dev.outboxkit.micrometer.
 * OutboxMetricsMeasurement-output.txt}. The transport confirms at once, so the figures show the
 * listener's cost against the relay's database work alone, its worst case.
 */
class OutboxMetricsMeasurement {
  private static final int EVENTS = 20_000;
  private static final int ROUNDS = 7;

  @Test
  void sample_and_cost_on_postgres() throws Exception {
    try (TestDatabase db = TestDatabases.create(Flavor.POSTGRES, "metricsbench")) {
      try (Connection c = db.connect()) {
        OutboxSchema.create(c);
      }
      sample(db);
      cost(db);
    }
  }

  private static void append(TestDatabase db, List<OutboxEvent> events) throws Exception {
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      for (int i = 0; i < events.size(); i += 1000) {
        Outbox.appendAll(c, events.subList(i, Math.min(events.size(), i + 1000)));
        c.commit();
      }
    }
  }

  private static void truncate(TestDatabase db) throws Exception {
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute("TRUNCATE TABLE outbox_event");
    }
  }

  private static void sample(TestDatabase db) throws Exception {
    truncate(db);
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      events.add(
          OutboxEvent.builder("Order", "o-" + i, "OrderPlaced")
              .payload("{\"n\":" + i + "}")
              .build());
    }
    append(db, events);
    String flaky = events.get(2).id().toString();
    String poison = events.get(5).id().toString();
    RecordingTransport transport = OutboxMetricsContractTest.retryOnceAndReject(flaky, poison);
    OutboxAdmin admin = OutboxAdmin.create(db.dataSource());
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    OutboxMetrics metrics =
        OutboxMetrics.builder(registry)
            .admin(admin)
            .snapshotInterval(Duration.ofMillis(1))
            .tag("relay", "sample")
            .build();
    RelayListener printing = new PrintingListener(metrics);

    System.out.println("## snapshot before the drain");
    System.out.println(admin.snapshot());
    System.out.println("## listener events");
    try (OutboxRelay relay =
        OutboxRelay.builder(db.dataSource(), transport)
            .name("sample")
            .retryBackoff(Duration.ofMillis(1), Duration.ofMillis(5))
            .listener(printing)
            .build()) {
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (transport.deliveredEvents().size() < 7 && System.nanoTime() < deadline) {
        if (relay.runOnce() == 0) {
          Thread.sleep(5);
        }
      }
    }
    Thread.sleep(5); // let the 1 ms snapshot interval pass
    System.out.println("## snapshot after the drain");
    System.out.println(admin.snapshot());
    System.out.println("## meters");
    System.out.println(registry.getMetersAsString());
    registry.close();
  }

  private static void cost(TestDatabase db) throws Exception {
    Transport instant = m -> SendResult.delivered();
    List<Double> plain = new ArrayList<>();
    List<Double> measured = new ArrayList<>();
    drain(db, instant, RelayListener.NONE); // warm-up
    for (int round = 0; round < ROUNDS; round++) {
      plain.add(drain(db, instant, RelayListener.NONE));
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      measured.add(
          drain(
              db,
              instant,
              OutboxMetrics.builder(registry).admin(OutboxAdmin.create(db.dataSource())).build()));
      registry.close();
    }
    // The listener's own cost per published event, apart from the database's noise.
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    OutboxMetrics metrics = OutboxMetrics.builder(registry).build();
    OutboxEvent event = OutboxEvent.builder("Order", "o-1", "OrderPlaced").payload("{}").build();
    Duration lag = Duration.ofMillis(12);
    long calls = 5_000_000;
    for (int warm = 0; warm < 2; warm++) {
      long start = System.nanoTime();
      for (long i = 0; i < calls; i++) {
        metrics.published(event, 1, lag);
      }
      if (warm == 1) {
        System.out.printf(
            "## OutboxMetrics.published: %.0f ns per call (%d calls)%n",
            (System.nanoTime() - start) / (double) calls, calls);
      }
    }
    registry.close();
    double p = median(plain);
    double m = median(measured);
    System.out.printf(
        "## drain cost (%d events, batch 100, PostgreSQL, instant transport, %d rounds)%n"
            + "no listener:     median %.0f events/s %s%n"
            + "OutboxMetrics:   median %.0f events/s %s%n"
            + "ratio (metrics / none): %.3f%n",
        EVENTS, ROUNDS, p, plain, m, measured, m / p);
  }

  private static double drain(TestDatabase db, Transport transport, RelayListener listener)
      throws Exception {
    truncate(db);
    List<OutboxEvent> events = new ArrayList<>(EVENTS);
    for (int i = 0; i < EVENTS; i++) {
      events.add(
          OutboxEvent.builder("Order", "o-" + (i % 500), "OrderPlaced")
              .payload("{\"n\":" + i + "}")
              .build());
    }
    append(db, events);
    try (OutboxRelay relay =
        OutboxRelay.builder(db.dataSource(), transport)
            .name("cost")
            .ordered(false)
            .listener(listener)
            .build()) {
      long start = System.nanoTime();
      int drained = 0;
      while (drained < EVENTS) {
        drained += relay.runOnce();
      }
      return EVENTS / ((System.nanoTime() - start) / 1e9);
    }
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }

  /** Prints each call, then hands it to the metrics. */
  private static final class PrintingListener implements RelayListener {
    private final RelayListener next;

    PrintingListener(RelayListener next) {
      this.next = next;
    }

    @Override
    public void batchClaimed(int size, Duration claimTime) {
      System.out.println("batchClaimed size=" + size + " claimTime=" + claimTime);
      next.batchClaimed(size, claimTime);
    }

    @Override
    public void batchCompleted(int size, Duration sendTime, Duration ackTime) {
      System.out.println(
          "batchCompleted size=" + size + " sendTime=" + sendTime + " ackTime=" + ackTime);
      next.batchCompleted(size, sendTime, ackTime);
    }

    @Override
    public void published(OutboxEvent event, int attempt, Duration lag) {
      System.out.println("published " + event + " attempt=" + attempt + " lag=" + lag);
      next.published(event, attempt, lag);
    }

    @Override
    public void retried(OutboxEvent event, int attempt, String reason, Duration delay) {
      System.out.println(
          "retried " + event + " attempt=" + attempt + " reason=" + reason + " delay=" + delay);
      next.retried(event, attempt, reason, delay);
    }

    @Override
    public void dead(OutboxEvent event, int attempt, String reason) {
      System.out.println("dead " + event + " attempt=" + attempt + " reason=" + reason);
      next.dead(event, attempt, reason);
    }
  }
}
