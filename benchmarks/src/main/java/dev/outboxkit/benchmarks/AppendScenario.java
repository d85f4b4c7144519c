package dev.outboxkit.benchmarks;

import dev.outboxkit.testkit.Flavor;
import java.util.ArrayList;
import java.util.List;

/** Scenario 1: append overhead against a hand-written INSERT. */
final class AppendScenario implements Scenario {
  @Override
  public String name() {
    return "append";
  }

  @Override
  public void run(BenchRun run) throws Exception {
    append(
        run.report(),
        new AppendBenchmark(run.db().dataSource(), run.dialect()),
        run.flavor(),
        run.quick(),
        run.reps());
  }

  private static void append(
      Report report, AppendBenchmark bench, Flavor flavor, boolean quick, int reps)
      throws Exception {
    int perThread = quick ? 250 : 500;
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "writers",
          "hand-written INSERT (tx/s)",
          "Outbox.append (tx/s)",
          "ratio",
          "with NOTIFY trigger (tx/s)",
          "ratio"
        });
    for (int threads : new int[] {1, 8}) {
      Stats hand = new Stats();
      Stats library = new Stats();
      Stats notifying = new Stats();
      bench.reset();
      bench.run(threads, perThread, false); // warm-up, discarded
      bench.reset();
      bench.run(threads, perThread, true);
      for (int r = 0; r < reps; r++) {
        // Alternate which goes first, so a drift in the machine's load favours neither.
        boolean libraryFirst = r % 2 == 1;
        if (libraryFirst) {
          bench.reset();
          library.add(bench.run(threads, perThread, true));
        }
        bench.reset();
        hand.add(bench.run(threads, perThread, false));
        if (!libraryFirst) {
          bench.reset();
          library.add(bench.run(threads, perThread, true));
        }
        if (flavor == Flavor.POSTGRES) {
          bench.reset();
          bench.notifyTrigger(true);
          notifying.add(bench.run(threads, perThread, true));
          bench.notifyTrigger(false);
        }
      }
      boolean pg = flavor == Flavor.POSTGRES;
      rows.add(
          new String[] {
            Integer.toString(threads),
            hand.format(),
            library.format(),
            String.format("%.2f", library.median() / hand.median()),
            pg ? notifying.format() : "n/a",
            pg ? String.format("%.2f", notifying.median() / hand.median()) : "n/a"
          });
    }
    report.section(
        "Append overhead — " + flavor,
        "Business transactions {INSERT a business row; append one event; commit}, "
            + perThread
            + " per writer, Outbox.append beside a hand-written INSERT of the identical row in the"
            + " same run. Target: ratio ≥ 0.95. On PostgreSQL also with the optional NOTIFY"
            + " trigger (OutboxSchema.createNotifyTrigger), which relays listening for"
            + " notifications need.",
        rows);
  }
}
