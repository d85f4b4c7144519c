package dev.outboxkit.benchmarks;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.testkit.Flavor;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Scenario 1, second half: {@link Outbox#appendAll} of 100 events in one transaction against a
 * hand-written JDBC batch of the identical rows.
 */
final class AppendAllScenario implements Scenario {
  private static final int EVENTS_PER_TX = 100;
  private static final byte[] PAYLOAD =
      "{\"order\":\"o-1\",\"total\":42,\"lines\":3}".getBytes(StandardCharsets.UTF_8);

  @Override
  public String name() {
    return "appendall";
  }

  @Override
  public void run(BenchRun run) throws Exception {
    DataSource ds = run.db().dataSource();
    // MariaDB inserts about a fifth as fast: fewer transactions keep its round as short.
    int transactions = run.quick() ? 30 : run.flavor() == Flavor.MARIADB ? 50 : 100;
    Stats hand = new Stats();
    Stats library = new Stats();
    measure(ds, run.dialect(), transactions, false); // warm-up, discarded
    measure(ds, run.dialect(), transactions, true);
    for (int r = 0; r < run.reps(); r++) {
      // Alternate which goes first, so a drift in the machine's load favours neither.
      boolean libraryFirst = r % 2 == 1;
      if (libraryFirst) {
        library.add(measure(ds, run.dialect(), transactions, true));
      }
      hand.add(measure(ds, run.dialect(), transactions, false));
      if (!libraryFirst) {
        library.add(measure(ds, run.dialect(), transactions, true));
      }
    }
    EventLoader.truncate(ds, "outbox_event");
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "events per tx", "hand-written batch (events/s)", "Outbox.appendAll (events/s)", "ratio"
        });
    rows.add(
        new String[] {
          Integer.toString(EVENTS_PER_TX),
          hand.format(),
          library.format(),
          String.format("%.2f", library.median() / hand.median())
        });
    run.report()
        .section(
            "Append in batches — " + run.flavor(),
            String.format(
                "%d transactions {Outbox.appendAll of %d events; commit} on one connection,"
                    + " beside a hand-written JDBC batch INSERT of the identical rows (same"
                    + " columns and values) in the same run, taking turns to go first. Target:"
                    + " ratio ≥ 0.95.",
                transactions, EVENTS_PER_TX),
            rows);
  }

  /** Events per second; the events are built before the clock starts, the same for both. */
  private static double measure(DataSource ds, Dialect dialect, int transactions, boolean library)
      throws SQLException {
    EventLoader.truncate(ds, "outbox_event");
    List<List<OutboxEvent>> batches = new ArrayList<>();
    for (int t = 0; t < transactions; t++) {
      List<OutboxEvent> batch = new ArrayList<>(EVENTS_PER_TX);
      for (int i = 0; i < EVENTS_PER_TX; i++) {
        batch.add(
            OutboxEvent.builder("Order", "o-" + t, "OrderLineAdded")
                .payload(PAYLOAD, OutboxEvent.JSON)
                .build());
      }
      batches.add(batch);
    }
    long start = System.nanoTime();
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      for (List<OutboxEvent> batch : batches) {
        if (library) {
          Outbox.appendAll(c, batch);
        } else {
          handWrittenBatch(c, dialect, batch);
        }
        c.commit();
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    long expected = (long) transactions * EVENTS_PER_TX;
    long stored = EventLoader.count(ds, "outbox_event");
    if (stored != expected) {
      throw new IllegalStateException(
          (library ? "appendAll" : "hand-written batch")
              + " stored "
              + stored
              + " rows, expected "
              + expected);
    }
    return expected / seconds;
  }

  private static void handWrittenBatch(Connection c, Dialect dialect, List<OutboxEvent> batch)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(AppendBenchmark.handWrittenSql(dialect))) {
      for (OutboxEvent e : batch) {
        AppendBenchmark.bindHandWritten(ps, e, dialect);
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }
}
