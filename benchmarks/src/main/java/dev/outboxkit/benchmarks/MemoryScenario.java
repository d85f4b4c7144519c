package dev.outboxkit.benchmarks;

import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.testkit.ChildJvm;
import dev.outboxkit.testkit.Flavor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Scenario 8: a relay drains a large backlog in a child JVM with a 64 MB heap; the heap in use
 * after a full GC at the start, at each quarter and at the end shows whether anything accumulates.
 */
final class MemoryScenario implements Scenario {
  private static final String TABLE = "outbox_event";
  private static final String HEAP = "-Xmx64m";
  private static final int BATCH = 500;
  private static final int AGGREGATES = 1000;

  @Override
  public String name() {
    return "memory";
  }

  @Override
  public void run(BenchRun run) throws Exception {
    // The heap is the relay JVM's, whatever the database: the full million runs on PostgreSQL,
    // a quarter of it on MariaDB (drained at about half the rate) to keep the run short.
    int events = run.quick() ? 50_000 : run.flavor() == Flavor.POSTGRES ? 1_000_000 : 250_000;
    Duration limit = Duration.ofSeconds(run.quick() ? 30 : 150);
    DataSource ds = run.db().dataSource();
    EventLoader.pendingOnly(ds, run.dialect(), TABLE, events, AGGREGATES);
    List<long[]> points = new ArrayList<>();
    String[] done;
    int status;
    try (ChildJvm child =
        BenchChild.start(
            "memory",
            MemoryProcess.class,
            List.of(HEAP),
            run.db(),
            List.of(
                Integer.toString(BATCH),
                Integer.toString(events),
                Long.toString(limit.toSeconds())))) {
      String line;
      while ((line = child.nextLine()).startsWith("HEAP ")) {
        String[] f = line.split(" ");
        points.add(new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
      }
      if (!line.startsWith("DONE ") || points.size() < 2) {
        throw child.failure("printed " + line + " after " + points.size() + " heap figures");
      }
      done = line.split(" ");
      status = child.exitStatus();
      if (status != 0) {
        throw child.failure("exited with status " + status);
      }
    }
    long drained = Long.parseLong(done[1]);
    Map<EventStatus, Long> counts = OutboxAdmin.create(ds).countByStatus();
    long published = counts.get(EventStatus.PUBLISHED);
    if (published != drained
        || counts.get(EventStatus.PENDING) != events - drained
        || counts.get(EventStatus.IN_FLIGHT) + counts.get(EventStatus.DEAD) != 0) {
      throw new IllegalStateException(
          "memory run drained " + drained + " of " + events + ", but the table holds " + counts);
    }
    EventLoader.truncate(ds, TABLE);
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"point", "events drained", "heap used after full GC (MB)"});
    for (int i = 0; i < points.size(); i++) {
      long[] p = points.get(i);
      String label =
          i == 0
              ? "start"
              : i < points.size() - 1
                  ? 100 * p[0] / events + " %"
                  : drained == events ? "end" : "end (time limit)";
      rows.add(new String[] {label, String.format("%,d", p[0]), mb(p[1])});
    }
    long end = points.get(points.size() - 1)[1];
    rows.add(new String[] {"growth, start → end", "", growth(end - points.get(0)[1])});
    if (points.size() > 2) {
      rows.add(new String[] {"growth, first quarter → end", "", growth(end - points.get(1)[1])});
    }
    run.report()
        .section(
            "Memory — " + run.flavor(),
            String.format(
                "One relay (null transport, batch %d) drains %,d PENDING events in a child JVM"
                    + " started with %s; heap in use after System.gc() (a full collection),"
                    + " from MemoryMXBean. One run, stopped at %d s if not done by then. The"
                    + " child exited with status %d after draining %,d events (%,.0f events/s),"
                    + " all of them PUBLISHED, none twice. Target: no growth from start to end.",
                BATCH,
                events,
                HEAP,
                limit.toSeconds(),
                status,
                drained,
                drained / Double.parseDouble(done[2])),
            rows);
  }

  private static String mb(long bytes) {
    return String.format("%.1f", bytes / 1048576.0);
  }

  private static String growth(long bytes) {
    return String.format("%+.1f", bytes / 1048576.0);
  }
}
