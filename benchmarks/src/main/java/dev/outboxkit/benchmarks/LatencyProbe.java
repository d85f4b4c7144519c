package dev.outboxkit.benchmarks;

import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.testkit.ChildJvm;
import dev.outboxkit.testkit.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * One configuration of scenario 4: a relay with default settings and a transport that confirms at
 * once ({@link AckClock}), a writer at the offered rate, commit-to-ack latency per event.
 */
final class LatencyProbe {
  private final TestDatabase db;
  private final DataSource ds;
  private final int rate;
  private final Duration warmUp;
  private final Duration measured;

  LatencyProbe(TestDatabase db, int rate, Duration warmUp, Duration measured) throws SQLException {
    this.db = db;
    this.ds = db.dataSource();
    this.rate = rate;
    this.warmUp = warmUp;
    this.measured = measured;
    try (Connection c = ds.getConnection()) {
      PacedWriter.createTable(c);
    }
  }

  /** The writer in this JVM; with {@code hint} it calls {@code relay.wakeUp()} after commit. */
  LatencyWindows inThisJvm(boolean hint) throws Exception {
    return measure(ds, Function.identity(), relay -> writeHere(relay, hint));
  }

  private Map<UUID, Long> writeHere(OutboxRelay relay, boolean hint) throws SQLException {
    try (Connection c = ds.getConnection()) {
      return PacedWriter.write(c, rate, warmUp.plus(measured), hint ? relay::wakeUp : () -> {});
    }
  }

  /** PostgreSQL: the writer in another JVM, the relay woken by LISTEN/NOTIFY. */
  LatencyWindows otherJvmWithNotify() throws Exception {
    try (Connection c = ds.getConnection()) {
      OutboxSchema.createNotifyTrigger(c, "outbox_event");
    }
    try {
      return measure(ds, b -> b.listenForNotifications(true), relay -> writeInChild());
    } finally {
      try (Connection c = ds.getConnection();
          Statement s = c.createStatement()) {
        s.execute("DROP TRIGGER IF EXISTS outbox_event_notify ON outbox_event");
      }
    }
  }

  private LatencyWindows measure(
      DataSource relayDs, Function<OutboxRelay.Builder, OutboxRelay.Builder> options, Writer writer)
      throws Exception {
    reset();
    AckClock acks = new AckClock();
    BatchTimes times = new BatchTimes();
    Map<UUID, Long> commits;
    try (OutboxRelay relay =
        options.apply(OutboxRelay.builder(relayDs, acks).name("latency").listener(times)).build()) {
      relay.start();
      commits = writer.write(relay);
      long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (acks.count() < commits.size() && System.nanoTime() < giveUp) {
        Thread.sleep(10); // waits for a condition, with a bound; the figures come from the clocks
      }
    }
    long published = OutboxAdmin.create(ds).count(EventStatus.PUBLISHED);
    if (published != commits.size() || !acks.acks().keySet().containsAll(commits.keySet())) {
      throw new IllegalStateException(
          String.format(
              "latency run broken: %d committed, %d acknowledged, %d PUBLISHED",
              commits.size(), acks.count(), published));
    }
    LatencyWindows windows =
        LatencyWindows.of(
            commits, acks.acks(), (double) warmUp.toNanos() / warmUp.plus(measured).toNanos());
    windows.batches = times.summary();
    return windows;
  }

  private Map<UUID, Long> writeInChild() throws IOException, InterruptedException {
    Path out = Files.createTempFile("outboxkit-bench-commits-", ".txt");
    try (ChildJvm child =
        BenchChild.start(
            "latency-writer",
            LatencyWriterChild.class,
            List.of("-Xmx256m"),
            db,
            List.of(
                Integer.toString(rate),
                Long.toString(warmUp.plus(measured).toMillis()),
                out.toString()))) {
      child.finish();
      Map<UUID, Long> commits = new LinkedHashMap<>();
      for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
        int space = line.indexOf(' ');
        commits.put(
            UUID.fromString(line.substring(0, space)), Long.parseLong(line.substring(space + 1)));
      }
      return commits;
    } finally {
      Files.deleteIfExists(out);
    }
  }

  private void reset() throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("TRUNCATE TABLE outbox_event");
      s.execute("TRUNCATE TABLE " + PacedWriter.BUSINESS_TABLE);
    }
  }

  /** Writes while the relay runs; returns commit instants per event id. */
  private interface Writer {
    Map<UUID, Long> write(OutboxRelay relay) throws Exception;
  }
}
