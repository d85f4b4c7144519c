package dev.outboxkit.benchmarks;

import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.micrometer.OutboxMetrics;
import dev.outboxkit.testkit.Flavor;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * What observing the relay costs: the same drain (null transport, unordered, batch 100) without a
 * listener and with {@link OutboxMetrics} on a Micrometer registry (counters, lag timer, batch
 * timers, backlog gauges read through {@link OutboxAdmin#snapshot()}), alternating which goes
 * first.
 */
final class ListenerScenario implements Scenario {
  private static final String TABLE = "outbox_event";
  private static final int BATCH = 100;
  private static final int AGGREGATES = 1000;

  @Override
  public String name() {
    return "listener";
  }

  @Override
  public void run(BenchRun run) throws Exception {
    if (run.flavor() != Flavor.POSTGRES) {
      return; // the listener runs in the relay's JVM: one database shows its cost
    }
    DataSource ds = run.db().dataSource();
    int events = run.events() / 5;
    Stats bare = new Stats();
    Stats metered = new Stats();
    drain(run, events, false); // warm-up, discarded
    drain(run, events, true);
    for (int r = 0; r < run.reps(); r++) {
      boolean meteredFirst = r % 2 == 1;
      if (meteredFirst) {
        metered.add(drain(run, events, true));
      }
      bare.add(drain(run, events, false));
      if (!meteredFirst) {
        metered.add(drain(run, events, true));
      }
    }
    EventLoader.truncate(ds, TABLE);
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"no listener (events/s)", "OutboxMetrics (events/s)", "ratio"});
    rows.add(
        new String[] {
          bare.format(), metered.format(), String.format("%.2f", metered.median() / bare.median())
        });
    run.report()
        .section(
            "Cost of metrics — " + run.flavor(),
            String.format(
                "%,d PENDING events drained by one relay (null transport, unordered, batch %d)"
                    + " without a listener and with OutboxMetrics on a SimpleMeterRegistry,"
                    + " gauges read after every drain. Target: no measurable cost (ratio ≈ 1).",
                events, BATCH),
            rows);
  }

  private static double drain(BenchRun run, int events, boolean withMetrics) throws Exception {
    DataSource ds = run.db().dataSource();
    EventLoader.pendingOnly(ds, run.dialect(), TABLE, events, AGGREGATES);
    if (!withMetrics) {
      return RelayDrain.drain(ds, TABLE, BATCH, false, events, null, null).eventsPerSecond();
    }
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    OutboxMetrics metrics = OutboxMetrics.builder(registry).admin(OutboxAdmin.create(ds)).build();
    double rate =
        RelayDrain.drain(ds, TABLE, BATCH, false, events, null, metrics).eventsPerSecond();
    double published = registry.get("outboxkit.relay.published").counter().count();
    double pending = registry.get("outboxkit.outbox.pending").gauge().value();
    if (published != events || pending != 0) {
      throw new IllegalStateException(
          "metrics saw " + published + " published and " + pending + " pending of " + events);
    }
    return rate;
  }
}
