package dev.outboxkit.benchmarks;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxSnapshot;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * Only the latest state matters: {@link #UPDATES} profile updates over {@link #KEYS} supersede keys
 * (one customer each), appended one per transaction at an even pace while the destination is down
 * for {@link #OUTAGE}, with a relay running throughout (default settings: it pauses and probes with
 * one event while the transport answers unavailable). After the outage: how many deliveries, the
 * newest of each key delivered last, and how long until nothing is left.
 */
final class SupersedeScenario implements Scenario {
  private static final int KEYS = 10;
  private static final int UPDATES = 1000;
  private static final Duration OUTAGE = Duration.ofSeconds(10);
  private static final Duration TIME_LIMIT = Duration.ofSeconds(120);

  @Override
  public String name() {
    return "supersede";
  }

  /** A destination that is down until told otherwise, then records what it is sent. */
  private static final class Destination implements Transport {
    volatile boolean down = true;
    final List<OutboxEvent> delivered = new CopyOnWriteArrayList<>();

    @Override
    public SendResult send(OutboxMessage message) {
      if (down) {
        return SendResult.unavailable("destination down");
      }
      delivered.add(message.event());
      return SendResult.delivered();
    }
  }

  /** One repetition's figures. */
  private static final class Outcome {
    int deliveries;
    long superseded;
    double drainSeconds;
  }

  @Override
  public void run(BenchRun run) throws Exception {
    DataSource ds = run.db().dataSource();
    Stats deliveries = new Stats();
    Stats superseded = new Stats();
    Stats drain = new Stats();
    for (int r = 0; r < run.reps(); r++) {
      Outcome o = once(ds);
      deliveries.add(o.deliveries);
      superseded.add(o.superseded);
      drain.add(o.drainSeconds);
    }
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "updates, keys",
          "deliveries after the outage",
          "target",
          "SUPERSEDED rows",
          "recovery to drained (s)"
        });
    rows.add(
        new String[] {
          String.format("%,d, %d", UPDATES, KEYS),
          deliveries.format(),
          Integer.toString(KEYS),
          superseded.format(),
          String.format("%.1f (%.1f–%.1f)", drain.median(), drain.min(), drain.max())
        });
    run.report()
        .section(
            "Supersede during an outage — " + run.flavor(),
            String.format(
                "%,d updates over %d supersede keys (one customer each), one per transaction at an"
                    + " even pace over a %d s outage of the destination, one relay running"
                    + " throughout with default settings (it probes with one event between"
                    + " pauses of 1–30 s). Every run checks that the newest update of each key"
                    + " was delivered last. A delivery beyond one per key is an update a probe"
                    + " held while a newer one was appended: it was not waiting, so it was not"
                    + " withdrawn, and was delivered after the outage (at least once).",
                UPDATES, KEYS, OUTAGE.toSeconds()),
            rows);
  }

  private static Outcome once(DataSource ds) throws Exception {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("TRUNCATE TABLE outbox_event");
    }
    Destination destination = new Destination();
    Outcome o = new Outcome();
    Map<String, Integer> newest = new ConcurrentHashMap<>();
    try (OutboxRelay relay = OutboxRelay.builder(ds, destination).name("supersede-bench").build()) {
      relay.start();
      long pace = OUTAGE.toNanos() / UPDATES;
      long start = System.nanoTime();
      for (int i = 0; i < UPDATES; i++) {
        long due = start + i * pace;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        String customer = "c" + (i % KEYS);
        try (Connection c = ds.getConnection()) {
          c.setAutoCommit(false);
          Outbox.append(
              c,
              OutboxEvent.builder("Customer", customer, "ProfileChanged")
                  .supersedeKey(customer + "/profile")
                  .header("n", Integer.toString(i))
                  .payload("{\"n\":" + i + "}")
                  .build());
          c.commit();
        }
        newest.put(customer, i);
      }
      destination.down = false;
      long recovered = System.nanoTime();
      OutboxAdmin admin = OutboxAdmin.create(ds);
      long deadline = recovered + TIME_LIMIT.toNanos();
      while (true) {
        OutboxSnapshot snap = admin.snapshot();
        if (snap.pending() == 0 && snap.inFlight() == 0) {
          break;
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("not drained within " + TIME_LIMIT + ": " + snap);
        }
        TimeUnit.MILLISECONDS.sleep(20);
      }
      o.drainSeconds = (System.nanoTime() - recovered) / 1e9;
      o.superseded = admin.count(EventStatus.SUPERSEDED);
    }
    Map<String, String> last = new ConcurrentHashMap<>();
    for (OutboxEvent e : destination.delivered) {
      last.put(e.aggregateId(), e.headers().get("n"));
    }
    for (Map.Entry<String, Integer> n : newest.entrySet()) {
      if (!Integer.toString(n.getValue()).equals(last.get(n.getKey()))) {
        throw new IllegalStateException(
            n.getKey() + ": newest update " + n.getValue() + " not delivered last: " + last);
      }
    }
    o.deliveries = destination.delivered.size();
    return o;
  }
}
