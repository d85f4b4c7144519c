package dev.outboxkit.benchmarks;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.Outbox;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;

/**
 * Business transactions {insert a business row; append one event; commit} at a fixed offered rate,
 * recording the instant each commit returned (epoch microseconds, the clock every JVM on the
 * machine shares). Used in this JVM and by {@link LatencyWriterChild} in another one.
 */
final class PacedWriter {
  static final String BUSINESS_TABLE = "bench_latency_orders";
  private static final byte[] PAYLOAD =
      "{\"order\":\"o-1\",\"total\":42,\"lines\":3}".getBytes(StandardCharsets.UTF_8);

  private PacedWriter() {}

  /** Creates the business table if needed. */
  static void createTable(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS "
              + BUSINESS_TABLE
              + " (id VARCHAR(40) PRIMARY KEY, total INT)");
    }
  }

  /**
   * Writes {@code rate} transactions per second for {@code duration} on {@code c}, calling {@code
   * afterCommit} after each commit; a transaction that falls behind schedule starts at once.
   *
   * @return commit instant (epoch micros) per event id, in commit order
   */
  static Map<UUID, Long> write(Connection c, int rate, Duration duration, Runnable afterCommit)
      throws SQLException {
    c.setAutoCommit(false);
    Map<UUID, Long> commits = new LinkedHashMap<>();
    long period = 1_000_000_000L / rate;
    long count = duration.toNanos() / period;
    long start = System.nanoTime();
    try (PreparedStatement business =
        c.prepareStatement("INSERT INTO " + BUSINESS_TABLE + " VALUES (?, ?)")) {
      for (long i = 0; i < count; i++) {
        long wait = start + i * period - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
        }
        String orderId = UUID.randomUUID().toString();
        business.setString(1, orderId);
        business.setInt(2, 42);
        business.executeUpdate();
        OutboxEvent e =
            OutboxEvent.builder("Order", orderId, "OrderPlaced")
                .payload(PAYLOAD, OutboxEvent.JSON)
                .build();
        Outbox.append(c, e);
        c.commit();
        commits.put(e.id(), micros(Instant.now()));
        afterCommit.run();
      }
    }
    return commits;
  }

  static long micros(Instant i) {
    return i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000;
  }
}
