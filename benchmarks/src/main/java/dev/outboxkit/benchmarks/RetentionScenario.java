package dev.outboxkit.benchmarks;

import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * Retention beside a relay: the drain rate of a relay while {@code OutboxAdmin.purgeFinished} walks
 * the same table on a thread and connection of its own, against the same drain with no purge, and
 * the purge's rate meanwhile. The modes take turns in each round. The admin walks back to back, the
 * harder case: a relay's own retention thread ({@code OutboxRelay.Builder.retention}) runs the same
 * walk but rests four times each window's time after it.
 */
final class RetentionScenario implements Scenario {
  private static final String TABLE = "outbox_retention";
  private static final int BATCH = 100;
  private static final int AGGREGATES = 1000;
  private static final Duration TIME_LIMIT = Duration.ofSeconds(30);

  @Override
  public String name() {
    return "retention";
  }

  @Override
  public void run(BenchRun run) throws Exception {
    DataSource ds = run.db().dataSource();
    int history = run.quick() ? 200_000 : 1_000_000;
    int events = run.quick() ? 2_000 : 10_000;
    try (Connection c = ds.getConnection()) {
      OutboxSchema.create(c, TABLE);
    }
    try {
      EventLoader.insert(ds, run.dialect(), TABLE, 1, history, AGGREGATES, EventStatus.PUBLISHED);
      try (Connection c = ds.getConnection();
          Statement s = c.createStatement()) {
        s.execute(
            "UPDATE "
                + TABLE
                + " SET published_at = "
                + (run.dialect() == Dialect.POSTGRESQL
                    ? "now() - INTERVAL '2 days'"
                    : "TIMESTAMPADD(DAY, -2, UTC_TIMESTAMP(6))"));
      }
      EventLoader.analyze(ds, run.dialect(), TABLE);
      Stats without = new Stats();
      Stats with = new Stats();
      Stats purgeRate = new Stats();
      drain(run, history, events, false); // warm-up, discarded
      for (int r = 0; r < run.reps(); r++) {
        without.add(drain(run, history, events, false)[0]);
        double[] purging = drain(run, history, events, true);
        with.add(purging[0]);
        purgeRate.add(purging[1]);
      }
      List<String[]> rows = new ArrayList<>();
      rows.add(
          new String[] {
            "drain alone (events/s)",
            "drain beside a purge (events/s)",
            "ratio",
            "purge meanwhile (rows/s)"
          });
      rows.add(
          new String[] {
            without.format(),
            with.format(),
            String.format("%.2f", with.median() / without.median()),
            purgeRate.format()
          });
      run.report()
          .section(
              "Retention beside the relay — " + run.flavor(),
              String.format(
                  "%,d PENDING events (%,d aggregates) drained by one relay (null transport,"
                      + " batch %d, unordered) from a table that also holds %,d PUBLISHED rows"
                      + " finished two days ago, alone and while OutboxAdmin.purgeFinished with a"
                      + " retention of one day (windows of %,d rows, one transaction each, back to"
                      + " back) deletes them on another thread and connection. Target: ratio ≥ 0.9.",
                  events, AGGREGATES, BATCH, history, OutboxAdmin.DEFAULT_PURGE_BATCH_SIZE),
              rows);
    } finally {
      try (Connection c = ds.getConnection();
          Statement s = c.createStatement()) {
        s.execute("DROP TABLE " + TABLE);
      }
    }
  }

  /**
   * Puts {@code events} PENDING rows after the history and drains them, with a purge running
   * meanwhile when asked.
   *
   * @return the drain's events per second, and the purge's rows per second (0 without)
   */
  private static double[] drain(BenchRun run, long history, int events, boolean purge)
      throws Exception {
    DataSource ds = run.db().dataSource();
    EventLoader.deleteAfter(ds, TABLE, history);
    EventLoader.insert(
        ds, run.dialect(), TABLE, history + 1, events, AGGREGATES, EventStatus.PENDING);
    EventLoader.analyze(ds, run.dialect(), TABLE);
    AtomicBoolean draining = new AtomicBoolean(true);
    long rowsBefore = EventLoader.count(ds, TABLE);
    AtomicReference<Exception> failure = new AtomicReference<>();
    Thread purger = null;
    if (purge) {
      // Public API only: the walk cannot be stopped midway, so the thread ends after the walk
      // under way when the drain ends.
      OutboxAdmin admin = OutboxAdmin.builder(ds).table(TABLE).dialect(run.dialect()).build();
      purger =
          Daemons.named("purge")
              .newThread(
                  () -> {
                    try {
                      while (draining.get()) {
                        admin.purgeFinished(Duration.ofDays(1));
                      }
                    } catch (RuntimeException e) {
                      failure.set(e);
                    }
                  });
      purger.start();
    }
    long start = System.nanoTime();
    RelayDrain.Drained d;
    double seconds;
    long purged;
    try {
      d = RelayDrain.drain(ds, TABLE, BATCH, false, events, TIME_LIMIT, null);
      seconds = (System.nanoTime() - start) / 1e9;
      // Rows gone while the relay drained (the purge may go on a moment after).
      purged = rowsBefore - EventLoader.count(ds, TABLE);
    } finally {
      draining.set(false);
    }
    if (purger != null) {
      purger.join();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("the purge failed", failure.get());
    }
    if (purge && purged == 0) {
      throw new SQLException("the purge deleted nothing during the drain: history exhausted");
    }
    return new double[] {d.eventsPerSecond(), purged / seconds};
  }
}
