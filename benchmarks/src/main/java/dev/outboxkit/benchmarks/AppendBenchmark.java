package dev.outboxkit.benchmarks;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * Scenario 1: business transactions {insert a business row; append one event; commit} through
 * {@link Outbox#append}, beside the same transactions with a hand-written INSERT of the identical
 * row; on PostgreSQL also with the optional NOTIFY trigger installed.
 */
final class AppendBenchmark {
  /** Transactions a writer runs one way before it takes the other. */
  static final int BLOCK = 25;

  private static final byte[] PAYLOAD = "{\"order\":\"o-1\",\"total\":42,\"lines\":3}".getBytes();

  private final DataSource ds;
  private final Dialect dialect;

  AppendBenchmark(DataSource ds, Dialect dialect) throws SQLException {
    this.ds = ds;
    this.dialect = dialect;
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS bench_orders (id VARCHAR(40) PRIMARY KEY, total INT)");
    }
  }

  void reset() throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("TRUNCATE TABLE outbox_event");
      s.execute("TRUNCATE TABLE bench_orders");
    }
  }

  void notifyTrigger(boolean on) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      if (on) {
        OutboxSchema.createNotifyTrigger(c, "outbox_event");
      } else {
        s.execute("DROP TRIGGER IF EXISTS outbox_event_notify ON outbox_event");
      }
    }
  }

  /**
   * Both ways' business transactions per second with {@code threads} writers, measured in turns:
   * each writer alternates blocks of {@value #BLOCK} transactions between the hand-written INSERT
   * and {@link Outbox#append}, starting on either by its index, and sums each way's time. Both then
   * meet the same database, the same load from the other writers and the same drift of the machine,
   * which separate runs of a quarter second each did not: their ratio swung by ±0.2.
   *
   * @param perThread transactions per writer and way
   * @return {hand-written, library}
   */
  double[] inTurns(int threads, int perThread) throws Exception {
    int blocks = Math.max(1, perThread / BLOCK);
    LongAdder[] nanos = {new LongAdder(), new LongAdder()};
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int first = t % 2;
        done.add(
            pool.submit(
                () -> {
                  try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(false);
                    for (int b = 0; b < 2 * blocks; b++) {
                      int way = (first + b) % 2;
                      long start = System.nanoTime();
                      for (int i = 0; i < BLOCK; i++) {
                        transaction(c, way == 1);
                      }
                      nanos[way].add(System.nanoTime() - start);
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    // Each writer spent its share of the summed time on a way: rate = transactions / mean time.
    double transactions = (double) threads * blocks * BLOCK;
    return new double[] {
      transactions / (nanos[0].sum() / 1e9 / threads),
      transactions / (nanos[1].sum() / 1e9 / threads)
    };
  }

  /** Business transactions per second with {@code threads} writers, {@code perThread} each. */
  double run(int threads, int perThread, boolean library) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      long start = System.nanoTime();
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(
            pool.submit(
                () -> {
                  try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(false);
                    for (int i = 0; i < perThread; i++) {
                      transaction(c, library);
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
      return threads * perThread / ((System.nanoTime() - start) / 1e9);
    } finally {
      pool.shutdown();
    }
  }

  private void transaction(Connection c, boolean library) throws SQLException {
    String orderId = UUID.randomUUID().toString();
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO bench_orders VALUES (?, ?)")) {
      ps.setString(1, orderId);
      ps.setInt(2, 42);
      ps.executeUpdate();
    }
    OutboxEvent e =
        OutboxEvent.builder("Order", orderId, "OrderPlaced")
            .payload(PAYLOAD, OutboxEvent.JSON)
            .build();
    if (library) {
      Outbox.append(c, e);
    } else {
      handWrittenInsert(c, e);
    }
    c.commit();
  }

  /** The identical row, written by hand with the dialect's clock expression. */
  private void handWrittenInsert(Connection c, OutboxEvent e) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(handWrittenSql(dialect))) {
      bindHandWritten(ps, e, dialect);
      ps.executeUpdate();
    }
  }

  /** A hand-written INSERT of the row {@link Outbox#append} writes, for the baselines. */
  static String handWrittenSql(Dialect dialect) {
    return "INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type, schema_version,"
        + " destination, tenant, payload, content_type, headers, occurred_at, available_at,"
        + " expires_at, aggregate_version, supersede_key, priority) VALUES (?, ?, ?, ?, ?, ?, ?, ?,"
        + " ?, ?, ?, "
        + (dialect == Dialect.POSTGRESQL ? "now()" : "UTC_TIMESTAMP(6)")
        + ", ?, ?, ?, ?)";
  }

  /**
   * Binds {@code e} (no headers, destination, expiry, version or supersede key) to {@link
   * #handWrittenSql}.
   */
  static void bindHandWritten(PreparedStatement ps, OutboxEvent e, Dialect dialect)
      throws SQLException {
    if (dialect == Dialect.POSTGRESQL) {
      ps.setObject(1, e.id());
      ps.setObject(11, e.occurredAt().atOffset(java.time.ZoneOffset.UTC));
    } else {
      ps.setString(1, e.id().toString());
      ps.setString(11, e.occurredAt().toString().replace('T', ' ').replace("Z", ""));
    }
    ps.setString(2, e.aggregateType());
    ps.setString(3, e.aggregateId());
    ps.setString(4, e.eventType());
    ps.setInt(5, 1);
    ps.setString(6, null);
    ps.setString(7, null);
    ps.setBytes(8, e.payload());
    ps.setString(9, OutboxEvent.JSON);
    ps.setString(10, null);
    ps.setObject(12, null);
    ps.setNull(13, java.sql.Types.BIGINT);
    ps.setString(14, null);
    ps.setInt(15, 0);
  }
}
