package dev.outboxkit.faults;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.jdbc.RelayListener;
import dev.outboxkit.kafka.KafkaTransport;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.ChildJvm;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.FreshDatabase;
import dev.outboxkit.testkit.Sql;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.TestDatabases;
import dev.outboxkit.testkit.TestFlavors;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every scenario needs: a fresh database of the run's flavour (each scenario is a class
 * parameterized by flavour, run once per flavour of {@link #flavors()}) with the outbox table, a
 * seeded {@link Random} (the seed is logged; {@code -Dfaults.seed=} replays a run), things to close
 * after each test (child JVMs first, they are registered last), and waits that poll the database
 * through connection failures.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ParameterizedClass(name = "{0}", allowZeroInvocations = true)
@MethodSource("flavors")
abstract class FaultTest {
  protected final Logger log = LoggerFactory.getLogger(getClass());

  @RegisterExtension
  final FreshDatabase database =
      FreshDatabase.from(this::newDatabase)
          .setUp(this::createTable)
          .beforeEachTest("DELETE FROM outbox_event");

  /** Set in each run of a scenario, see {@link #flavors()}. */
  @Parameter private Flavor flavor;

  protected TestDatabase db;
  protected DataSource ds;
  protected Random random;
  protected long seed;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  /** What a scenario runs on, its {@code @MethodSource}: PostgreSQL and MariaDB. */
  static List<Flavor> flavors() {
    return TestFlavors.of(Flavor.POSTGRES, Flavor.MARIADB);
  }

  /** The database product this run is on. */
  protected Flavor flavor() {
    return flavor;
  }

  /** The class's fresh database: on the shared server of {@link #flavor()}, unless overridden. */
  protected TestDatabase newDatabase(String name) throws Exception {
    return TestDatabases.create(flavor(), name);
  }

  private void createTable(TestDatabase fresh) throws SQLException {
    db = fresh;
    ds = fresh.dataSource();
    try (Connection c = ds.getConnection()) {
      OutboxSchema.create(c);
    }
  }

  @BeforeEach
  void seedRandom() {
    seed = Long.getLong("faults.seed", System.nanoTime());
    random = new Random(seed);
    log.info(
        "[{}] {}: random seed {} (replay with -Dfaults.seed={})",
        flavor(),
        getClass().getSimpleName(),
        seed,
        seed);
  }

  @AfterEach
  void closeAll() throws Exception {
    Exception failure = null;
    for (int i = toClose.size() - 1; i >= 0; i--) {
      try {
        toClose.get(i).close();
      } catch (Exception e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    toClose.clear();
    if (failure != null) {
      throw failure;
    }
  }

  /** Closes the resource after the test, before anything registered earlier. */
  protected <T extends AutoCloseable> T closeLater(T resource) {
    toClose.add(resource);
    return resource;
  }

  /**
   * Starts a child JVM that is killed after the test whatever happens: quick to start and light on
   * a small, shared machine, since these JVMs live for seconds.
   */
  protected ChildJvm startChild(String name, Class<?> main, List<String> args) {
    List<String> jvm = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
    return closeLater(ChildJvm.start(flavor() + "-" + name, main, jvm, args));
  }

  /**
   * The arguments every {@link RelayChild} of a scenario shares: this test's database, the broker
   * and the lease; the caller adds its own.
   */
  protected List<String> relayChildArgs(KafkaTestBroker broker, Duration lease) {
    List<String> args = new ArrayList<>(coordinates().args());
    args.add("--bootstrap=" + broker.bootstrapServers());
    args.add("--lease-ms=" + lease.toMillis());
    return args;
  }

  /** {@code common} followed by {@code more}. */
  protected static List<String> with(List<String> common, String... more) {
    List<String> args = new ArrayList<>(common);
    args.addAll(List.of(more));
    return args;
  }

  protected DbCoordinates coordinates() {
    return DbCoordinates.of(db);
  }

  protected String database() {
    return flavor() == Flavor.POSTGRES ? "Postgres" : "MariaDB";
  }

  /**
   * Starts two relays, {@code <prefix>-1} and {@code <prefix>-2}, each with its own pool (tagged
   * for {@link DbCoordinates#pool}) and Kafka producer, draining to the shared broker in small
   * batches (more transactions for a fault to land in) with leases short enough to recover within
   * the test.
   */
  protected void startTwoKafkaRelays(String prefix, String poolTag, RelayListener listener) {
    KafkaTestBroker broker = KafkaTestBroker.shared();
    for (int r = 1; r <= 2; r++) {
      String name = prefix + "-" + r;
      HikariDataSource pool = closeLater(coordinates().pool(name, 3, poolTag));
      KafkaTransport kafka =
          closeLater(
              KafkaTransports.create(broker.bootstrapServers(), name, Duration.ofSeconds(3)));
      OutboxRelay relay =
          closeLater(
              OutboxRelay.builder(pool, kafka)
                  .name(name)
                  .batchSize(100)
                  .pollInterval(Duration.ofMillis(100))
                  .leaseDuration(Duration.ofSeconds(8))
                  .sendTimeout(Duration.ofSeconds(3))
                  .listener(listener)
                  .build());
      relay.start();
    }
  }

  // ------------------------------------------------------------------------------------ events

  /**
   * Appends {@code count} events made by {@code factory}, committing every {@code perTransaction},
   * then refreshes PostgreSQL's statistics.
   */
  protected List<OutboxEvent> append(
      int count, int perTransaction, IntFunction<OutboxEvent> factory) throws SQLException {
    List<OutboxEvent> all = new ArrayList<>(count);
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      List<OutboxEvent> chunk = new ArrayList<>(perTransaction);
      for (int i = 0; i < count; i++) {
        chunk.add(factory.apply(i));
        if (chunk.size() == perTransaction || i == count - 1) {
          Outbox.appendAll(c, chunk);
          c.commit();
          all.addAll(chunk);
          chunk.clear();
        }
      }
    }
    analyze();
    return all;
  }

  /** A small JSON event of aggregate {@code "<type>" / "a<i % aggregates>"}. */
  protected static OutboxEvent event(String type, int i, int aggregates) {
    String aggregate = "a" + (i % aggregates);
    return OutboxEvent.builder(type, aggregate, "Step")
        .payload("{\"aggregate\":\"" + aggregate + "\",\"n\":" + i + "}")
        .header("n", Integer.toString(i))
        .build();
  }

  /**
   * Creates the topic of four partitions the relays' Kafka transport sends events of {@code type}
   * to, and returns its name.
   */
  protected static String createTopic(KafkaTestBroker broker, String type) {
    String topic = "outbox.event." + type;
    broker.createTopic(topic, 4, Map.of());
    return topic;
  }

  /**
   * Appends the scenario's row to the fault results: how many of the appended events the topic
   * holds, its extra copies, the table's DEAD count and the events lost.
   */
  protected void writeReport(
      String scenario,
      List<OutboxEvent> appended,
      TopicCopies copies,
      double seconds,
      String notes) {
    new FaultReport(
            scenario,
            database(),
            appended.size(),
            copies.distinct(),
            copies.duplicates(),
            count(EventStatus.DEAD),
            copies.lost(appended),
            seconds,
            notes)
        .write();
  }

  /** A name unique within this JVM, usable as a Kafka topic suffix and aggregate type. */
  protected static String unique(String stem) {
    return stem + Long.toString(System.nanoTime() & 0xffffffffL, 36);
  }

  // ------------------------------------------------------------------------------------- table

  protected long count(EventStatus status) {
    return retrying(() -> OutboxAdmin.create(ds).count(status));
  }

  protected Map<EventStatus, Long> statuses() {
    return retrying(() -> OutboxAdmin.create(ds).countByStatus());
  }

  /** Waits until {@code expected} events are PUBLISHED; fails with the status counts if not. */
  protected void awaitPublished(long expected, Duration timeout) {
    Await.until(
        () -> count(EventStatus.PUBLISHED) >= expected,
        timeout,
        () -> expected + " PUBLISHED; statuses " + statuses());
  }

  /**
   * Runs a read, retrying for a while if the database fails it: scenarios cut connections, and the
   * test's own pooled connections may be among them.
   */
  protected static <T> T retrying(Supplier<T> read) {
    RuntimeException last = null;
    for (int i = 0; i < 50; i++) {
      try {
        return read.get();
      } catch (RuntimeException e) {
        last = e;
        sleep(100);
      }
    }
    throw last;
  }

  protected void execute(String sql) throws SQLException {
    Sql.execute(ds, sql);
  }

  protected long queryLong(String sql) throws SQLException {
    return Sql.queryLong(ds, sql);
  }

  protected List<String> queryStrings(String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  /**
   * Gives PostgreSQL's planner statistics for a fresh backlog, as autovacuum would a minute later;
   * the relay pins its claim plan anyway, the test's own queries profit.
   */
  protected void analyze() throws SQLException {
    if (flavor() == Flavor.POSTGRES) {
      execute("ANALYZE outbox_event");
    }
  }

  protected static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  protected static double secondsSince(long nanoStart) {
    return (System.nanoTime() - nanoStart) / 1e9;
  }
}
