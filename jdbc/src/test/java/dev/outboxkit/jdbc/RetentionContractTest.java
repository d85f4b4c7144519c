package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import dev.outboxkit.testing.RecordingTransport;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.Flavor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scheduled retention ({@code OutboxRelay.Builder.retention}) on a real database: what goes, what
 * stays, and a purge of a large table beside running relays and appenders. One run per database.
 */
@ParameterizedClass(name = "{0}", allowZeroInvocations = true)
@MethodSource("flavors")
class RetentionContractTest extends RelayDatabaseTest {
  private static final Logger log = LoggerFactory.getLogger(RetentionContractTest.class);

  /** Rows of the large table: the issue asks for at least a million beside running relays. */
  private int largeTableRows() {
    switch (flavor()) {
      case MYSQL:
        // A quarter of the million: MariaDB runs the million rows on the same statements
        // (mysql.sql), and the embedded MySQL 8 server takes about two and a half minutes of a CI
        // run for them.
        return 250_000;
      case H2:
        // In-memory H2, a development dialect: a fifth of the rows keeps the build's heap small.
        return 200_000;
      default:
        return 1_000_000;
    }
  }

  @Test
  void retention_purges_rows_past_it_and_keeps_young_dead_and_live_rows() throws Exception {
    Loaded loaded = load(100);
    List<OutboxEvent> live = append(5, i -> event("live-" + i, i));
    RecordingListener listener = new RecordingListener();
    RecordingTransport transport = new RecordingTransport();

    OutboxRelay relay =
        startPurging(transport, "keeper", listener, b -> b.retention(Duration.ofHours(1)));
    try {
      // The passes are the retention thread's; the live rows go out on the worker's own time.
      awaitPublished(loaded.young + live.size(), Duration.ofSeconds(30));
    } finally {
      relay.close();
    }

    assertThat(listener.purgedEvents.get()).isEqualTo(loaded.oldFinished);
    assertThat(countStatus(EventStatus.PUBLISHED)).isEqualTo(loaded.young + live.size());
    assertThat(countStatus(EventStatus.EXPIRED)).isZero();
    assertThat(countStatus(EventStatus.DEAD)).as("DEAD kept without deadRetention").isEqualTo(1);
    assertThat(transport.deliveredEvents())
        .extracting(OutboxEvent::id)
        .containsExactlyInAnyOrderElementsOf(ids(live));
  }

  @Test
  void dead_retention_purges_dead_rows_past_it_counted_from_when_they_went_dead() throws Exception {
    load(100);
    RecordingTransport refusing =
        new RecordingTransport().respondWith(m -> SendResult.reject("refused for the test"));
    List<OutboxEvent> dying = append(3, i -> event("dying-" + i, i));
    relay(refusing, "killer").build().drain();
    assertThat(countStatus(EventStatus.DEAD)).isEqualTo(4);
    assertThat(count("SELECT COUNT(*) FROM outbox_event WHERE published_at IS NULL"))
        .as("a DEAD row records when it went DEAD")
        .isZero();
    RecordingListener listener = new RecordingListener();

    startPurging(
            new RecordingTransport(),
            "dead-keeper",
            listener,
            b -> b.deadRetention(Duration.ofDays(1)))
        .close();

    // Only the loaded DEAD row is older than a day; finished rows are kept without retention().
    assertThat(listener.purgedEvents.get()).isEqualTo(1);
    assertThat(countStatus(EventStatus.DEAD)).isEqualTo(dying.size());
    assertThat(countStatus(EventStatus.PUBLISHED) + countStatus(EventStatus.EXPIRED)).isEqualTo(99);
    admin().replay(dying.get(0).id());
    assertThat(
            count(
                "SELECT COUNT(*) FROM outbox_event WHERE published_at IS NULL"
                    + " AND status = 'PENDING'"))
        .as("replay clears it")
        .isEqualTo(1);
  }

  @Test
  void inbox_retention_purges_the_inbox_on_the_relays_thread() throws Exception {
    Inbox inbox = Inbox.create();
    try (Connection c = ds.getConnection()) {
      OutboxSchema.createInbox(c);
      try (Statement s = c.createStatement()) {
        s.execute("DELETE FROM outbox_inbox");
      }
    }
    try (Connection c = transaction()) {
      for (int i = 0; i < 5; i++) {
        inbox.markProcessed(c, "billing", UUID.randomUUID());
      }
      c.commit();
    }
    RecordingListener listener = new RecordingListener();

    Thread.sleep(5);
    startPurging(
            new RecordingTransport(),
            "inbox-keeper",
            listener,
            b -> b.inboxRetention(inbox, Duration.ofMillis(1)))
        .close();

    assertThat(listener.purgedInboxRows.get()).isEqualTo(5);
    assertThat(count("SELECT COUNT(*) FROM outbox_inbox")).isZero();
  }

  @Test
  void retention_of_a_large_table_beside_running_relays_and_appenders_loses_and_blocks_nothing()
      throws Exception {
    Loaded loaded = load(largeTableRows());
    long deadlocksBefore = deadlocks();
    RecordingListener listener = new RecordingListener();
    RecordingTransport transport = new RecordingTransport();
    List<OutboxEvent> appended = Collections.synchronizedList(new ArrayList<>());
    AtomicBoolean appending = new AtomicBoolean(true);
    AtomicReference<Throwable> appendFailure = new AtomicReference<>();
    List<Thread> appenders = new ArrayList<>();
    for (int a = 0; a < 2; a++) {
      int appender = a;
      Thread t =
          new Thread(
              () -> {
                try {
                  // At most 5,000 events each: enough beside any purge, few enough to drain.
                  for (int n = 0; appending.get() && n < 500; n++) {
                    int first = n;
                    appended.addAll(
                        append(10, i -> event("agg-" + appender + "-" + (first + i) % 20, first)));
                    Thread.sleep(20); // up to 1,000 events/s from both: what H2 relays keep up with
                  }
                } catch (Throwable e) {
                  appendFailure.set(e);
                }
              },
              "appender-" + a);
      appenders.add(t);
    }
    long start = System.nanoTime();
    List<OutboxRelay> relays = new ArrayList<>();
    try {
      for (int r = 0; r < 2; r++) {
        OutboxRelay relay =
            relay(transport, "purger-" + r)
                .retention(Duration.ofHours(1))
                .retentionInterval(Duration.ofMillis(200))
                // At full speed, unlike production (whose pacing the benchmarks measure): the
                // harshest contention, and a test of minutes rather than a quarter of an hour.
                .retentionRestPerWork(0)
                .listener(listener)
                .build();
        relays.add(relay);
        relay.start();
      }
      appenders.forEach(Thread::start);
      awaitPurged(listener, loaded.oldFinished, Duration.ofMinutes(5));
      long purgedAfter = System.nanoTime();
      appending.set(false);
      for (Thread t : appenders) {
        t.join();
      }
      assertThat(appendFailure.get()).as("appenders never failed").isNull();
      awaitPublished(loaded.young + appended.size(), Duration.ofSeconds(120));
      double seconds = (purgedAfter - start) / 1e9;
      log.info(
          "[{}] {} rows purged in {} s ({} rows/s) beside 2 relays that delivered {} events"
              + " appended meanwhile",
          flavor(),
          loaded.oldFinished,
          String.format("%.1f", seconds),
          Math.round(loaded.oldFinished / seconds),
          appended.size());
    } finally {
      relays.forEach(OutboxRelay::close);
    }

    assertThat(listener.purgedEvents.get())
        .as("every old row purged exactly once")
        .isEqualTo(loaded.oldFinished);
    assertThat(countStatus(EventStatus.PENDING)).as("no stuck row").isZero();
    assertThat(countStatus(EventStatus.IN_FLIGHT)).as("no stuck row").isZero();
    assertThat(countStatus(EventStatus.DEAD)).isEqualTo(loaded.dead);
    assertThat(countStatus(EventStatus.PUBLISHED)).isEqualTo(loaded.young + appended.size());
    assertThat(appended).as("appenders ran beside the purge").hasSizeGreaterThan(100);
    assertDeliveredInAggregateOrder(transport, appended);
    // Test logs go to this JVM's own file (the build names it); a pass that failed says so there.
    Path testLog = Path.of(System.getProperty("org.slf4j.simpleLogger.logFile", "target/test.log"));
    assertThat(Files.readString(testLog, StandardCharsets.UTF_8))
        .as("a retention pass failed (a deadlock victim, a lock timeout)")
        .doesNotContain("[purger-0] retention pass failed")
        .doesNotContain("[purger-1] retention pass failed");
    long deadlocks = deadlocks() - deadlocksBefore;
    log.info("[{}] deadlocks on the server during the run: {}", flavor(), deadlocks);
    if (flavor() == Flavor.POSTGRES) {
      // InnoDB relays may deadlock each other's claims (retried, see RelayStore); PostgreSQL's
      // never do, so any deadlock there would be the purge's.
      assertThat(deadlocks).as("deadlocks while purging").isZero();
    }
  }

  // ---------------------------------------------------------------------------------------------

  /** What {@link #load} put in the table. */
  static final class Loaded {
    final long oldFinished;
    final long young;
    final long dead;

    Loaded(long oldFinished, long young, long dead) {
      this.oldFinished = oldFinished;
      this.young = young;
      this.dead = dead;
    }
  }

  /**
   * Starts a relay purging every 100 ms as {@code retention} has it, and returns it once {@code
   * listener} heard two purge passes; the caller closes it.
   */
  private OutboxRelay startPurging(
      Transport transport,
      String name,
      RecordingListener listener,
      UnaryOperator<OutboxRelay.Builder> retention) {
    OutboxRelay relay =
        retention
            .apply(relay(transport, name))
            .retentionInterval(Duration.ofMillis(100))
            .listener(listener)
            .build();
    try {
      relay.start();
      awaitPasses(listener, 2);
      return relay;
    } catch (RuntimeException | Error e) {
      relay.close();
      throw e;
    }
  }

  /**
   * Loads {@code n} finished rows in one statement, interleaved by seq: every tenth PUBLISHED ten
   * minutes ago (young), every tenth from the fifth EXPIRED two hours ago, one in 100,000 DEAD for
   * two days, the rest PUBLISHED two hours ago.
   */
  private Loaded load(int n) throws SQLException {
    String status =
        "CASE WHEN MOD(g, 100000) = 7 THEN 'DEAD' WHEN MOD(g, 10) = 5 THEN 'EXPIRED'"
            + " ELSE 'PUBLISHED' END";
    String ageSeconds =
        "CASE WHEN MOD(g, 100000) = 7 THEN 172800 WHEN MOD(g, 10) = 0 THEN 600 ELSE 7200 END";
    String columns =
        "INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type, payload,"
            + " content_type, occurred_at, available_at, status, published_at) ";
    String sql;
    switch (flavor()) {
      case POSTGRES:
        sql =
            columns
                + "SELECT gen_random_uuid(), 'Bulk', 'bulk-' || MOD(g, 1000), 'Loaded',"
                + " '\\x7b7d'::bytea, 'application/json', now(), now(), "
                + status
                + ", now() - ("
                + ageSeconds
                + ") * INTERVAL '1 second' FROM generate_series(1, "
                + n
                + ") AS s(g)";
        break;
      case H2:
        sql =
            columns
                + "SELECT RANDOM_UUID(), 'Bulk', CONCAT('bulk-', MOD(g, 1000)), 'Loaded',"
                + " X'7b7d', 'application/json', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, "
                + status
                + ", DATEADD(SECOND, -("
                + ageSeconds
                + "), CURRENT_TIMESTAMP) FROM (SELECT X AS g FROM SYSTEM_RANGE(1, "
                + n
                + "))";
        break;
      default:
        // A thousand-row recursion squared: within MySQL's default recursion limit.
        sql =
            columns
                + "WITH RECURSIVE d(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM d WHERE k < 999)"
                + " SELECT UUID(), 'Bulk', CONCAT('bulk-', MOD(g, 1000)), 'Loaded', '{}',"
                + " 'application/json', UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), "
                + status
                + ", TIMESTAMPADD(SECOND, -("
                + ageSeconds
                + "), UTC_TIMESTAMP(6)) FROM (SELECT a.k * 1000 + b.k + 1 AS g FROM d a"
                + " CROSS JOIN d b) AS s WHERE g <= "
                + n;
    }
    long started = System.nanoTime();
    execute(sql);
    if (flavor() == Flavor.POSTGRES) {
      execute("ANALYZE outbox_event");
    }
    log.info(
        "[{}] loaded {} rows in {} ms", flavor(), n, (System.nanoTime() - started) / 1_000_000);
    long dead = n / 100_000 + (n % 100_000 >= 7 ? 1 : 0);
    long young = n / 10;
    return new Loaded(n - young - dead, young, dead);
  }

  /** The server's count of deadlocks so far (every database of the server). */
  private long deadlocks() throws SQLException {
    String query;
    switch (flavor()) {
      case POSTGRES:
        execute("SELECT pg_stat_clear_snapshot()");
        query = "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()";
        break;
      case MARIADB:
        query =
            "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS"
                + " WHERE VARIABLE_NAME = 'INNODB_DEADLOCKS'";
        break;
      case MYSQL:
        query = "SELECT COUNT FROM information_schema.INNODB_METRICS WHERE NAME = 'lock_deadlocks'";
        break;
      default:
        return 0; // H2 reports a deadlock as an error to the statement, which would fail the run
    }
    return count(query);
  }

  private static void assertDeliveredInAggregateOrder(
      RecordingTransport transport, List<OutboxEvent> appended) {
    Map<String, List<UUID>> expected = new HashMap<>();
    for (OutboxEvent e : appended) {
      expected.computeIfAbsent(e.aggregateId(), k -> new ArrayList<>()).add(e.id());
    }
    Set<UUID> seen = new HashSet<>();
    Map<String, List<UUID>> delivered = new HashMap<>();
    for (OutboxEvent e : transport.deliveredEvents()) {
      if (seen.add(e.id())) {
        delivered.computeIfAbsent(e.aggregateId(), k -> new ArrayList<>()).add(e.id());
      }
    }
    assertThat(delivered).isEqualTo(expected);
  }

  private static List<UUID> ids(List<OutboxEvent> events) {
    List<UUID> ids = new ArrayList<>();
    events.forEach(e -> ids.add(e.id()));
    return ids;
  }

  private static void awaitPasses(RecordingListener listener, long count) {
    Await.until(
        () -> listener.purgePasses.get() >= count,
        Duration.ofSeconds(30),
        () -> count + " retention passes");
  }

  private static void awaitPurged(RecordingListener listener, long rows, Duration timeout) {
    Await.until(
        () -> listener.purgedEvents.get() >= rows,
        timeout,
        () -> rows + " rows purged, " + listener.purgedEvents.get() + " so far");
  }
}
