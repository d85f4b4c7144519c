package dev.outboxkit.benchmarks;

import dev.outboxkit.testkit.Flavor;
import java.util.ArrayList;
import java.util.List;

/** Scenario 2: drain with a null transport against a hand-written SQL loop. */
final class DrainScenario implements Scenario {
  /** The batch size (500); each size added here costs about a minute per database. */
  private static final int[] BATCH_SIZES = {500};

  @Override
  public String name() {
    return "drain";
  }

  @Override
  public void run(BenchRun run) throws Exception {
    drain(
        run.report(),
        new DrainBenchmark(run.db(), run.dialect()),
        run.flavor(),
        run.events(),
        run.reps());
  }

  private static void drain(
      Report report, DrainBenchmark bench, Flavor flavor, int events, int reps) throws Exception {
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "batch",
          "hand-written loop (events/s)",
          "relay unordered (events/s)",
          "ratio",
          "relay ordered, 1,000 aggregates (events/s)",
          "ratio"
        });
    for (int batch : BATCH_SIZES) {
      Stats baseline = new Stats();
      Stats unordered = new Stats();
      Stats ordered = new Stats();
      int warmUp = events / 5; // a smaller warm-up round, discarded
      bench.load(warmUp, 1000);
      bench.baseline(warmUp, batch);
      bench.load(warmUp, 1000);
      bench.relay(warmUp, batch, true);
      for (int r = 0; r < reps; r++) {
        bench.load(events, 1000);
        baseline.add(bench.baseline(events, batch));
        bench.load(events, 1000);
        unordered.add(bench.relay(events, batch, false));
        bench.load(events, 1000);
        ordered.add(bench.relay(events, batch, true));
      }
      rows.add(
          new String[] {
            Integer.toString(batch),
            baseline.format(),
            unordered.format(),
            String.format("%.2f", unordered.median() / baseline.median()),
            ordered.format(),
            String.format("%.2f", ordered.median() / baseline.median())
          });
    }
    report.section(
        "Drain, null transport — " + flavor,
        String.format(
            "%,d PENDING events (200-byte payload) drained by one relay with a transport that"
                + " confirms at once, beside a hand-written loop doing the minimum SQL at the same"
                + " batch size. Target: relay/loop ≥ 0.8.",
            events),
        rows);
  }
}
