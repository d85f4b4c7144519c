package dev.outboxkit.benchmarks;

import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.testkit.Flavor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Scenario 4: commit-to-ack latency at a fixed offered rate, with polling only, with PostgreSQL's
 * LISTEN/NOTIFY wake-up (writer in another JVM) and with the same-JVM wake-up hint.
 */
final class LatencyScenario implements Scenario {
  private static final int RATE = 500;

  @Override
  public String name() {
    return "latency";
  }

  @Override
  public void run(BenchRun run) throws Exception {
    Duration warmUp = Duration.ofSeconds(1);
    Duration measured = Duration.ofSeconds(run.quick() ? 3 : 30);
    LatencyProbe probe = new LatencyProbe(run.db(), RATE, warmUp, measured);
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "wake-up",
          "events measured",
          "p50 (ms)",
          "p99 (ms)",
          "max (ms)",
          "target",
          "per batch: claim, send, ack (median ms); events"
        });
    rows.add(
        row(
            "polling only (pollInterval " + OutboxRelay.DEFAULT_POLL_INTERVAL.toMillis() + " ms)",
            probe.inThisJvm(false),
            "none"));
    if (run.flavor() == Flavor.POSTGRES) {
      rows.add(
          row(
              "LISTEN/NOTIFY, writer in another JVM",
              probe.otherJvmWithNotify(),
              "p50 ≤ 5, p99 ≤ 25"));
    }
    rows.add(
        row(
            "same-JVM hint: relay.wakeUp() after commit",
            probe.inThisJvm(true),
            "p50 ≤ 2, p99 ≤ 10"));
    run.report()
        .section(
            "Latency, commit to ack — " + run.flavor(),
            String.format(
                "Business transactions {INSERT a business row; Outbox.append; commit} offered at"
                    + " %d/s by one writer for %d s after a discarded %d s warm-up; latency from"
                    + " the instant commit returned in the writer to the instant the transport"
                    + " confirmed the event (epoch microseconds on both sides, one machine clock)."
                    + " The transport confirms at once, so the figure is the relay's own latency."
                    + " One relay with default settings (ordered, batch size %d, pollInterval %d"
                    + " ms: after a batch that found events it polls again after 5 ms, backing off"
                    + " to the poll interval only while the table stays empty). Each figure is the"
                    + " median of the run's %d equal windows by commit time, min–max in brackets."
                    + " Every committed event is checked acknowledged and PUBLISHED. The last column"
                    + " shows where the relay's time goes (RelayListener timings of the batches"
                    + " that found events). On PostgreSQL the relay's own claim and acknowledgement"
                    + " transactions commit without waiting for the WAL flush (the library's"
                    + " setting; the writer's commits stay synchronous).",
                RATE,
                measured.getSeconds(),
                warmUp.getSeconds(),
                OutboxRelay.DEFAULT_BATCH_SIZE,
                OutboxRelay.DEFAULT_POLL_INTERVAL.toMillis(),
                LatencyWindows.COUNT),
            rows);
  }

  private static String[] row(String wakeUp, LatencyWindows w, String target) {
    return new String[] {
      wakeUp,
      String.format("%,d", w.events),
      LatencyWindows.ms(w.p50),
      LatencyWindows.ms(w.p99),
      LatencyWindows.ms(w.max),
      target,
      w.batches
    };
  }
}
