package dev.outboxkit.benchmarks;

import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Scenario 5: the drain rate with a million PUBLISHED rows in the table against an empty table.
 * Both tables sit in the same database and take turns, so machine noise hits both alike.
 */
final class TableSizeScenario implements Scenario {
  private static final String EMPTY = "outbox_event";
  private static final String FULL = "outbox_history";
  private static final int BATCH = 100;
  private static final int AGGREGATES = 1000;
  private static final Duration TIME_LIMIT = Duration.ofSeconds(5);

  @Override
  public String name() {
    return "tablesize";
  }

  @Override
  public void run(BenchRun run) throws Exception {
    DataSource ds = run.db().dataSource();
    int history = run.quick() ? 100_000 : 1_000_000;
    int events = run.quick() ? 2_000 : 10_000;
    try (Connection c = ds.getConnection()) {
      OutboxSchema.create(c, FULL);
    }
    try {
      EventLoader.insert(ds, run.dialect(), FULL, 1, history, AGGREGATES, EventStatus.PUBLISHED);
      EventLoader.analyze(ds, run.dialect(), FULL);
      List<String[]> rows = new ArrayList<>();
      rows.add(
          new String[] {
            "mode",
            "empty table (events/s)",
            String.format("%,d PUBLISHED rows (events/s)", history),
            "ratio"
          });
      for (boolean ordered : new boolean[] {false, true}) {
        Stats empty = new Stats();
        Stats full = new Stats();
        boolean cut = false;
        drain(run, EMPTY, 0, events, ordered); // warm-up, discarded
        drain(run, FULL, history, events, ordered);
        for (int r = 0; r < run.reps(); r++) {
          RelayDrain.Drained e = drain(run, EMPTY, 0, events, ordered);
          RelayDrain.Drained f = drain(run, FULL, history, events, ordered);
          empty.add(e.eventsPerSecond());
          full.add(f.eventsPerSecond());
          cut |= !e.complete() || !f.complete();
        }
        rows.add(
            new String[] {
              ordered ? "ordered" : "unordered",
              empty.format(),
              full.format() + (cut ? " †" : ""),
              String.format("%.2f", full.median() / empty.median())
            });
      }
      run.report()
          .section(
              "Table size — " + run.flavor(),
              String.format(
                  "%,d PENDING events (%,d aggregates) drained by one relay (null transport, batch"
                      + " %d) from a table that also holds %,d PUBLISHED rows of the same"
                      + " aggregates, against an empty table; both analyzed after loading, as"
                      + " autovacuum would have. Target: ratio ≥ 0.9 (the claim stays on the"
                      + " index). † A drain stopped at the %d s limit: its rate is over the"
                      + " events drained by then.",
                  events, AGGREGATES, BATCH, history, TIME_LIMIT.toSeconds()),
              rows);
    } finally {
      EventLoader.truncate(ds, EMPTY);
      try (Connection c = ds.getConnection();
          Statement s = c.createStatement()) {
        s.execute("DROP TABLE " + FULL);
      }
    }
  }

  /** Puts {@code events} PENDING rows after the {@code history} rows and drains them. */
  private static RelayDrain.Drained drain(
      BenchRun run, String table, long history, int events, boolean ordered) throws SQLException {
    DataSource ds = run.db().dataSource();
    EventLoader.deleteAfter(ds, table, history);
    EventLoader.insert(
        ds, run.dialect(), table, history + 1, events, AGGREGATES, EventStatus.PENDING);
    EventLoader.analyze(ds, run.dialect(), table);
    return RelayDrain.drain(ds, table, BATCH, ordered, events, TIME_LIMIT, null);
  }
}
