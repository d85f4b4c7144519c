package dev.outboxkit.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxkit.SendResult;
import dev.outboxkit.jdbc.OutboxRelay;
import java.lang.management.ManagementFactory;

/**
 * Child JVM of the memory scenario, started with a small heap: one relay (null transport) drains
 * the table batch by batch. Prints {@code HEAP <drained> <bytes>} with the heap used after a full
 * GC before the first batch, each time another quarter of the events is drained, and at the end;
 * then {@code DONE <drained> <seconds>}. Stops early at a time limit, so that a drain that crawls
 * (see the table-size scenario) still reports its heap.
 *
 * <p>Arguments: JDBC URL, user, password, batch size, events expected, time limit in seconds.
 */
final class MemoryProcess {
  private static final int POINTS = 4;

  private MemoryProcess() {}

  public static void main(String[] args) throws Exception {
    int batchSize = Integer.parseInt(args[3]);
    long events = Long.parseLong(args[4]);
    long limitNanos = Long.parseLong(args[5]) * 1_000_000_000L;
    BenchChild.exitWithParent();
    try (HikariDataSource ds = BenchChild.dataSource(args);
        OutboxRelay relay =
            OutboxRelay.builder(ds, m -> SendResult.delivered())
                .name("memory")
                .batchSize(batchSize)
                .ordered(false)
                .build()) {
      ds.getConnection().close();
      long drained = 0;
      long nextPoint = events / POINTS;
      heap(drained);
      long start = System.nanoTime();
      int n;
      while (System.nanoTime() - start < limitNanos && (n = relay.runOnce()) > 0) {
        drained += n;
        if (drained >= nextPoint && drained < events) {
          heap(drained);
          nextPoint += events / POINTS;
        }
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      heap(drained);
      System.out.println("DONE " + drained + " " + seconds);
    }
  }

  /** Heap in use after a full collection: what the relay keeps, not what it has yet to collect. */
  private static void heap(long drained) {
    System.gc();
    long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    System.out.println("HEAP " + drained + " " + used);
  }
}
