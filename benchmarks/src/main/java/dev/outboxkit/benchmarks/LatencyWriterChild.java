package dev.outboxkit.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

/**
 * The writer of scenario 4 in a JVM of its own ({@link BenchChild}), for the PostgreSQL
 * LISTEN/NOTIFY wake-up: the relay's process learns of its commits only through the database.
 * Writes {@code <event id> <commit epoch micros>} lines to a file once done.
 *
 * <p>Arguments: the database coordinates ({@link BenchChild#dataSource}), rate per second, duration
 * in milliseconds, output file.
 */
final class LatencyWriterChild {
  private LatencyWriterChild() {}

  /** Entry point of the child JVM. */
  public static void main(String[] args) throws Exception {
    Map<UUID, Long> commits;
    try (HikariDataSource ds = BenchChild.dataSource(args);
        Connection c = ds.getConnection()) {
      commits =
          PacedWriter.write(
              c, Integer.parseInt(args[3]), Duration.ofMillis(Long.parseLong(args[4])), () -> {});
    }
    try (BufferedWriter out = Files.newBufferedWriter(Path.of(args[5]), StandardCharsets.UTF_8)) {
      for (Map.Entry<UUID, Long> e : commits.entrySet()) {
        out.write(e.getKey() + " " + e.getValue() + "\n");
      }
    }
  }
}
