package dev.outboxkit.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.testkit.ChildJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Scenario 7: 1, 2 and 4 relays drain one table together, in this JVM (each relay on its own pool)
 * and as separate processes. Throughput is all events over the wall time from the start signal to
 * the last relay finding the table drained; every delivery is counted per event id, so a duplicate
 * would show (and fails the run: without faults there must be none).
 */
final class ScaleOutScenario implements Scenario {
  private static final String TABLE = "outbox_event";
  private static final int BATCH = 100;
  private static final int AGGREGATES = 1000;
  private static final int[] RELAYS = {1, 2, 4};
  private static final Duration TIMEOUT = Duration.ofMinutes(2);

  @Override
  public String name() {
    return "scaleout";
  }

  @Override
  public void run(BenchRun run) throws Exception {
    int events = run.quick() ? 2_000 : 10_000;
    Stats[] inJvm = new Stats[RELAYS.length];
    Stats[] processes = new Stats[RELAYS.length];
    Stats[] relayCpu = new Stats[RELAYS.length];
    Stats[] databaseCpu = new Stats[RELAYS.length];
    for (int i = 0; i < RELAYS.length; i++) {
      inJvm[i] = new Stats();
      processes[i] = new Stats();
      relayCpu[i] = new Stats();
      databaseCpu[i] = new Stats();
    }
    inJvm(run, events, 1); // warm-up, discarded
    for (int i = 0; i < RELAYS.length; i++) {
      for (int r = 0; r < run.reps(); r++) {
        inJvm[i].add(inJvm(run, events, RELAYS[i]));
      }
      processRounds(run, events, RELAYS[i], processes[i], relayCpu[i], databaseCpu[i]);
    }
    EventLoader.truncate(run.db().dataSource(), TABLE);
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "relays",
          "in one JVM (events/s)",
          "ratio",
          "separate JVMs (events/s)",
          "ratio",
          "relay CPU ms / 1,000 events",
          "database CPU ms / 1,000 events"
        });
    for (int i = 0; i < RELAYS.length; i++) {
      rows.add(
          new String[] {
            Integer.toString(RELAYS[i]),
            inJvm[i].format(),
            String.format("%.2f", inJvm[i].median() / inJvm[0].median()),
            processes[i].format(),
            String.format("%.2f", processes[i].median() / processes[0].median()),
            relayCpu[i].format(),
            databaseCpu[i].format()
          });
    }
    run.report()
        .section(
            "Scale-out — " + run.flavor(),
            String.format(
                "%,d PENDING events (%,d aggregates) drained by 1, 2 or 4 unordered relays (null"
                    + " transport, batch %d) running in the background together: in this JVM,"
                    + " each relay with its own pool, and as child JVMs (started, connected and"
                    + " warmed up by a discarded round before the clock starts). Events/s = all"
                    + " events / wall time from the start signal until a poll every 5 ms finds"
                    + " no event PENDING or IN_FLIGHT; ratio against 1 relay of the same kind."
                    + " Duplicates: none in any run (every delivery is counted per event id; one"
                    + " duplicate fails the run). Database and relays share the same %d cores."
                    + " CPU per 1,000 events (separate JVMs): user + system time the relay JVMs"
                    + " used from the start signal to the stop (getProcessCpuTime, summed over"
                    + " the relays), and what the database server's processes used meanwhile"
                    + " (/proc); what a machine of more cores can be sized from.",
                events, AGGREGATES, BATCH, Runtime.getRuntime().availableProcessors()),
            rows);
  }

  /** Starts {@code relays} child JVMs, runs a discarded warm-up round, then the measured ones. */
  private static void processRounds(
      BenchRun run, int events, int relays, Stats stats, Stats relayCpu, Stats databaseCpu)
      throws Exception {
    List<ChildJvm> children = new ArrayList<>();
    try {
      for (int c = 0; c < relays; c++) {
        children.add(
            BenchChild.start(
                "relay-" + c,
                RelayProcess.class,
                List.of("-Xmx256m"),
                run.db(),
                List.of("relay-" + c, Integer.toString(BATCH))));
      }
      for (ChildJvm child : children) {
        child.expect("READY");
      }
      processes(run, events, children); // warm-up of the new JVMs, discarded
      for (int r = 0; r < run.reps(); r++) {
        Round round = processes(run, events, children);
        stats.add(round.eventsPerSecond);
        relayCpu.add(round.relayCpuNanos / 1e6 / (events / 1000.0));
        databaseCpu.add(round.databaseCpuNanos / 1e6 / (events / 1000.0));
      }
      for (ChildJvm child : children) {
        child.finish();
      }
    } finally {
      for (ChildJvm child : children) {
        child.close();
      }
    }
  }

  private static void load(BenchRun run, int events) throws Exception {
    EventLoader.pendingOnly(run.db().dataSource(), run.dialect(), TABLE, events, AGGREGATES);
  }

  private static double inJvm(BenchRun run, int events, int relays) throws Exception {
    load(run, events);
    Deliveries deliveries = new Deliveries();
    List<HikariDataSource> pools = new ArrayList<>();
    List<OutboxRelay> started = new ArrayList<>();
    try {
      for (int i = 0; i < relays; i++) {
        HikariDataSource pool = run.db().newDataSource(2);
        pool.getConnection().close(); // connect before the clock starts
        pools.add(pool);
      }
      long start = System.nanoTime();
      for (int i = 0; i < relays; i++) {
        OutboxRelay relay =
            OutboxRelay.builder(pools.get(i), deliveries)
                .name("relay-" + i)
                .batchSize(BATCH)
                .ordered(false)
                .build();
        started.add(relay);
        relay.start();
      }
      String what = relays + " relays in one JVM";
      RelayDrain.awaitDrained(run.db().dataSource(), TABLE, TIMEOUT, what);
      double seconds = (System.nanoTime() - start) / 1e9;
      started.forEach(OutboxRelay::close);
      deliveries.check(events, what);
      RelayDrain.checkFinished(run.db().dataSource(), TABLE, what);
      return events / seconds;
    } finally {
      started.forEach(OutboxRelay::close);
      pools.forEach(HikariDataSource::close);
    }
  }

  /** A measured round of the relay processes: throughput, and the CPU time each side used. */
  private static final class Round {
    final double eventsPerSecond;
    final long relayCpuNanos;
    final long databaseCpuNanos;

    Round(double eventsPerSecond, long relayCpuNanos, long databaseCpuNanos) {
      this.eventsPerSecond = eventsPerSecond;
      this.relayCpuNanos = relayCpuNanos;
      this.databaseCpuNanos = databaseCpuNanos;
    }
  }

  /** One round of the started relay processes: all drain together, each reports its ids. */
  private static Round processes(BenchRun run, int events, List<ChildJvm> children)
      throws Exception {
    load(run, events);
    List<Path> idFiles = new ArrayList<>();
    try {
      long databaseCpuAtStart = CpuTime.ofDatabaseServer(run.flavor());
      long start = System.nanoTime();
      for (ChildJvm child : children) {
        child.send("GO");
      }
      String what = children.size() + " relay processes";
      RelayDrain.awaitDrained(run.db().dataSource(), TABLE, TIMEOUT, what);
      double seconds = (System.nanoTime() - start) / 1e9;
      for (ChildJvm child : children) {
        Path ids = Files.createTempFile("outboxkit-bench-ids-", ".txt");
        idFiles.add(ids);
        child.send("STOP " + ids);
      }
      long deliveries = 0;
      long relayCpu = 0;
      Set<String> distinct = new HashSet<>();
      for (int i = 0; i < children.size(); i++) {
        relayCpu += Long.parseLong(children.get(i).expect("SAVED"));
        List<String> ids = Files.readAllLines(idFiles.get(i), StandardCharsets.UTF_8);
        deliveries += ids.size();
        distinct.addAll(ids);
      }
      if (distinct.size() != events || deliveries != events) {
        throw new IllegalStateException(
            what
                + ": "
                + distinct.size()
                + " distinct events delivered, "
                + (deliveries - distinct.size())
                + " duplicates; expected "
                + events
                + " once each");
      }
      long databaseCpu = CpuTime.ofDatabaseServer(run.flavor()) - databaseCpuAtStart;
      RelayDrain.checkFinished(run.db().dataSource(), TABLE, what);
      return new Round(events / seconds, relayCpu, databaseCpu);
    } finally {
      for (Path ids : idFiles) {
        Files.deleteIfExists(ids);
      }
    }
  }
}
