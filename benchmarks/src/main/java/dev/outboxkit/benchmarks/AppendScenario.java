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
    boolean pg = flavor == Flavor.POSTGRES;
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "writers",
          "transactions per writer and way",
          "hand-written INSERT (tx/s)",
          "Outbox.append (tx/s)",
          "ratio",
          "with NOTIFY trigger (tx/s)",
          "ratio"
        });
    for (int threads : new int[] {1, 8}) {
      int perThread = (threads == 1 ? 2000 : 500) / (quick ? 4 : 1);
      Stats hand = new Stats();
      Stats library = new Stats();
      Stats notifying = new Stats();
      bench.reset();
      bench.inTurns(threads, perThread / 4); // warm-up, discarded
      for (int r = 0; r < reps; r++) {
        bench.reset();
        double[] rates = bench.inTurns(threads, perThread);
        hand.add(rates[0]);
        library.add(rates[1]);
        if (pg) {
          bench.reset();
          bench.notifyTrigger(true);
          notifying.add(bench.run(threads, perThread, true));
          bench.notifyTrigger(false);
        }
      }
      rows.add(
          new String[] {
            Integer.toString(threads),
            String.format("%,d", perThread),
            hand.format(),
            library.format(),
            String.format("%.2f", library.median() / hand.median()),
            pg ? notifying.format() : "n/a",
            pg ? String.format("%.2f", notifying.median() / hand.median()) : "n/a"
          });
    }
    report.section(
        "Append overhead — " + flavor,
        "Business transactions {INSERT a business row; append one event; commit}: Outbox.append"
            + " beside a hand-written INSERT of the identical row (every written column, the same"
            + " values), in turns: each writer alternates blocks of "
            + AppendBenchmark.BLOCK
            + " transactions between the two on its own connection, starting on either by its"
            + " index, and each way's rate is its transactions over the time its blocks took. So"
            + " both meet the same load and drift (separate short runs, as before 2026-12-04,"
            + " swung the ratio by ±0.2 on MariaDB). Target: ratio ≥ 0.95. On PostgreSQL also"
            + " with the optional NOTIFY trigger (OutboxSchema.createNotifyTrigger), which relays"
            + " listening for notifications need: a run of its own right after, against the"
            + " hand-written rate.",
        rows);
  }
}
