package dev.outboxkit.benchmarks;

import dev.outboxkit.testkit.Flavor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A held xmin horizon (PostgreSQL): a steady append load drained by one relay, first alone, then
 * while another connection holds a {@code REPEATABLE READ} snapshot open, then after it let go.
 * Vacuum cannot remove the row versions the claims and acknowledgements leave behind while the
 * snapshot is held, so every claim walks past more of them: this measures what that costs.
 */
final class HorizonScenario implements Scenario {
  /** Offered rate of the steady load, business transactions of one event per second. */
  static final int RATE = 500;

  /** Events appended at once at each mark, whose drain rate is the relay's capacity then. */
  static final int BURST = 10_000;

  @Override
  public String name() {
    return "horizon";
  }

  @Override
  public void run(BenchRun run) throws Exception {
    if (run.flavor() != Flavor.POSTGRES) {
      return; // see RESULTS.md: InnoDB's purge lag under a long read view is not measured here
    }
    Duration before = Duration.ofMinutes(run.quick() ? 1 : 3);
    Duration held = Duration.ofMinutes(Long.getLong("bench.horizon.minutes", run.quick() ? 1 : 10));
    Duration after = Duration.ofMinutes(run.quick() ? 1 : 3);
    report(run, before, held, after, new HorizonTimeline(run.db(), before, held, after).run());
  }

  private static void report(
      BenchRun run, Duration before, Duration held, Duration after, HorizonTimeline.Result r) {
    List<String[]> minutes = new ArrayList<>();
    minutes.add(
        new String[] {
          "minute",
          "phase",
          "steady events",
          "p50 (ms)",
          "p99 (ms)",
          "claim, median (ms)",
          "dead row versions",
          "indexes (MB)",
          "claim index (MB)"
        });
    for (HorizonTimeline.Minute m : r.minutes()) {
      minutes.add(
          new String[] {
            Integer.toString(m.index() + 1),
            m.phase(),
            String.format("%,d", m.events()),
            String.format("%.2f", m.p50Ms()),
            String.format("%.2f", m.p99Ms()),
            String.format("%.2f", m.claimMs()),
            String.format("%,d", m.deadTuples()),
            String.format("%.1f", m.indexMb()),
            String.format("%.1f", m.claimIndexMb())
          });
    }
    List<String[]> bursts = new ArrayList<>();
    bursts.add(new String[] {"mark", "drain of the burst (events/s)", "ratio to alone"});
    double alone = r.bursts().get(0).rate();
    for (HorizonTimeline.Burst b : r.bursts()) {
      bursts.add(
          new String[] {
            b.mark(),
            b.rate() == 0 ? "not drained" : String.format("%,.0f", b.rate()),
            String.format("%.2f", b.rate() / alone)
          });
    }
    String title = "Held xmin horizon — " + run.flavor();
    run.report()
        .section(
            title,
            String.format(
                "One relay with default settings (ordered, batch 100) and a transport that"
                    + " confirms at once drains a steady load of %d business transactions per"
                    + " second (one event each, one writer): %d min alone, %d min while another"
                    + " connection holds a REPEATABLE READ transaction open (it read one row,"
                    + " so vacuum may remove no row version newer than its snapshot), %d min after"
                    + " it committed. Autovacuum runs with the server's settings. Per minute of"
                    + " commit time: commit-to-ack latency of the steady events (those committed"
                    + " while a burst drained left out), the relay's claim time, and, sampled at"
                    + " the minute's end, the table's dead row versions (pg_stat_user_tables) and"
                    + " its index sizes. Every committed event is checked acknowledged and"
                    + " PUBLISHED. %s",
                RATE, before.toMinutes(), held.toMinutes(), after.toMinutes(), r.verdict()),
            minutes);
    run.report()
        .section(
            title + ", bursts",
            String.format(
                "At each mark %,d events are appended in one transaction beside the steady"
                    + " load; the drain rate is %,d over the time from that commit to the last"
                    + " of them acknowledged. Target: at the end of the held window ≥ 0.8 of"
                    + " alone, and p99 latency within 2× of alone.",
                BURST, BURST),
            bursts);
  }
}
