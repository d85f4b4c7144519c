package dev.outboxkit.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxkit.SendResult;
import dev.outboxkit.jdbc.OutboxRelay;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Child JVM of the scale-out scenario: runs one relay (null transport) in the background from each
 * {@code GO} of its parent to the next {@code STOP <ids file>}, then writes the ids it published in
 * that round to the file, one a line, and prints {@code SAVED <cpu>}: the CPU time this JVM used in
 * the round, in nanoseconds. Prints {@code READY} once connected; exits when stdin ends. Rounds
 * after the first run on a warm JVM.
 *
 * <p>Arguments: JDBC URL, user, password, relay name, batch size.
 */
final class RelayProcess {
  private RelayProcess() {}

  public static void main(String[] args) throws Exception {
    BenchChild.exitWithParent();
    try (HikariDataSource ds = BenchChild.dataSource(args)) {
      ds.getConnection().close(); // connect before the clock starts
      System.out.println("READY");
      BufferedReader stdin =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      while ("GO".equals(stdin.readLine())) {
        long cpuAtGo = CpuTime.ofThisProcess();
        Queue<String> published = new ConcurrentLinkedQueue<>();
        OutboxRelay relay =
            OutboxRelay.builder(
                    ds,
                    m -> {
                      published.add(m.event().id().toString());
                      return SendResult.delivered();
                    })
                .name(args[3])
                .batchSize(Integer.parseInt(args[4]))
                .ordered(false)
                .build();
        relay.start();
        String stop = stdin.readLine();
        relay.close();
        if (stop == null || !stop.startsWith("STOP ")) {
          return;
        }
        long cpu = CpuTime.ofThisProcess() - cpuAtGo;
        Files.write(Path.of(stop.substring(5)), published, StandardCharsets.UTF_8);
        System.out.println("SAVED " + cpu);
      }
    }
  }
}
