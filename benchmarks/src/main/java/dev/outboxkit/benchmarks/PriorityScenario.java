package dev.outboxkit.benchmarks;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxRelay;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * A password-reset event behind a burst of audit events: {@link #PROBES} events of priority 5,
 * appended one per transaction every {@link #PROBE_PACE} while a relay drains a backlog of {@link
 * #BACKLOG} events of priority 0, against the same probes on an empty table. Both runs use the same
 * relay (defaults, ordered, with a short poll interval so that the empty table's figure is the
 * relay's own latency, not a poll wait). One more probe of priority 0, appended right behind the
 * backlog, shows what the burst costs an event without priority.
 */
final class PriorityScenario implements Scenario {
  private static final int BACKLOG = 100_000;
  private static final int AGGREGATES = 1_000;
  private static final int PROBES = 20;
  private static final Duration PROBE_PACE = Duration.ofMillis(100);
  private static final Duration POLL = Duration.ofMillis(10);
  private static final Duration TIME_LIMIT = Duration.ofSeconds(300);

  @Override
  public String name() {
    return "priority";
  }

  /** One repetition's figures, in milliseconds. */
  private static final class Outcome {
    final Stats urgent = new Stats();
    double unprioritised = Double.NaN;
    long backlogLeft;
  }

  @Override
  public void run(BenchRun run) throws Exception {
    DataSource ds = run.db().dataSource();
    Stats emptyMedian = new Stats();
    Stats emptyMax = new Stats();
    Stats busyMedian = new Stats();
    Stats busyMax = new Stats();
    Stats ratio = new Stats();
    Stats unprioritised = new Stats();
    Stats left = new Stats();
    for (int r = 0; r < run.reps(); r++) {
      Outcome empty = once(run, ds, false);
      Outcome busy = once(run, ds, true);
      emptyMedian.add(empty.urgent.median());
      emptyMax.add(empty.urgent.max());
      busyMedian.add(busy.urgent.median());
      busyMax.add(busy.urgent.max());
      ratio.add(busy.urgent.median() / empty.urgent.median());
      unprioritised.add(busy.unprioritised);
      left.add(busy.backlogLeft);
    }
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "table",
          "priority-5 commit→ack, median (ms)",
          "max of " + PROBES + " (ms)",
          "median / empty table",
          "target",
          "priority-0 event behind the backlog (ms)",
          "backlog left after the last probe"
        });
    rows.add(new String[] {"empty", ms(emptyMedian), ms(emptyMax), "1", "", "", ""});
    rows.add(
        new String[] {
          String.format("%,d priority-0 events pending", BACKLOG),
          ms(busyMedian),
          ms(busyMax),
          String.format("%.2f (%.2f–%.2f)", ratio.median(), ratio.min(), ratio.max()),
          "≤ 2",
          ms(unprioritised),
          left.format()
        });
    run.report()
        .section(
            "Priority behind a backlog — " + run.flavor(),
            String.format(
                "%d events of priority 5, one per transaction every %d ms, each in an aggregate of"
                    + " its own, while one relay (ordered, batch size and pipeline by default,"
                    + " poll interval %d ms) drains %,d events of priority 0 over %,d aggregates;"
                    + " against the same probes on an empty table. Commit→ack: from the probe's"
                    + " commit to the transport's confirmation (a transport that confirms at"
                    + " once). The priority-0 event was appended right behind the backlog.",
                PROBES, PROBE_PACE.toMillis(), POLL.toMillis(), BACKLOG, AGGREGATES),
            rows);
  }

  private static String ms(Stats s) {
    return String.format("%.1f (%.1f–%.1f)", s.median(), s.min(), s.max());
  }

  private static Outcome once(BenchRun run, DataSource ds, boolean backlog) throws Exception {
    Outcome o = new Outcome();
    UUID behind = null;
    long behindCommitted = 0;
    if (backlog) {
      EventLoader.pendingOnly(ds, run.dialect(), "outbox_event", BACKLOG, AGGREGATES);
      OutboxEvent plain = probe("behind", 0);
      behind = plain.id();
      behindCommitted = append(ds, plain);
    } else {
      EventLoader.truncate(ds, "outbox_event");
    }
    AckClock acks = new AckClock();
    List<UUID> ids = new ArrayList<>();
    List<Long> commits = new ArrayList<>();
    try (OutboxRelay relay =
        OutboxRelay.builder(ds, acks).name("priority-bench").pollInterval(POLL).build()) {
      relay.start();
      long start = System.nanoTime();
      for (int i = 0; i < PROBES; i++) {
        long wait = start + i * PROBE_PACE.toNanos() - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        OutboxEvent urgent = probe("urgent-" + i, 5);
        ids.add(urgent.id());
        commits.add(append(ds, urgent));
      }
      o.backlogLeft = backlog ? OutboxAdmin.create(ds).snapshot().pending() : 0;
      long deadline = System.nanoTime() + TIME_LIMIT.toNanos();
      int expected = backlog ? BACKLOG + PROBES + 1 : PROBES;
      while (acks.count() < expected) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "only " + acks.count() + " of " + expected + " acked within " + TIME_LIMIT);
        }
        TimeUnit.MILLISECONDS.sleep(20);
      }
    }
    for (int i = 0; i < ids.size(); i++) {
      o.urgent.add((acks.acks().get(ids.get(i)) - commits.get(i)) / 1000.0);
    }
    if (behind != null) {
      o.unprioritised = (acks.acks().get(behind) - behindCommitted) / 1000.0;
    }
    return o;
  }

  private static OutboxEvent probe(String aggregateId, int priority) {
    return OutboxEvent.builder("Account", aggregateId, "PasswordResetRequested")
        .payload("{}")
        .priority(priority)
        .build();
  }

  /** Appends in a transaction of its own; returns the commit instant in epoch micros. */
  private static long append(DataSource ds, OutboxEvent e) throws Exception {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      Outbox.append(c, e);
      c.commit();
    }
    return PacedWriter.micros(Instant.now());
  }
}
