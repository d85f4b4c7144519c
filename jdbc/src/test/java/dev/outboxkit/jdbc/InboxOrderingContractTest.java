package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.InvalidEventException;
import dev.outboxkit.jdbc.Inbox.OnGap;
import dev.outboxkit.jdbc.Inbox.Verdict;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What {@link Inbox#accept}, the inbox's ordering guard, promises consumers, on every database:
 * each verdict and what it records, each {@link OnGap}, the caller's transaction, bad input, and
 * concurrent deliveries of one aggregate on real threads.
 */
@ParameterizedClass(name = "{0}", allowZeroInvocations = true)
@MethodSource("flavors")
class InboxOrderingContractTest extends DatabaseTest {
  private static final String ORDER = "Order";

  private final Inbox inbox = Inbox.create();

  @BeforeEach
  void createTables() throws SQLException {
    try (Connection c = ds.getConnection()) {
      OutboxSchema.createInbox(c);
    }
    // The consumer's own state: each aggregate's version as its effects left it, and a log of
    // every version applied (its key refuses a version applied twice).
    execute(
        "CREATE TABLE IF NOT EXISTS guarded_head (aggregate_id VARCHAR(64) NOT NULL PRIMARY KEY,"
            + " version BIGINT NOT NULL)");
    execute(
        "CREATE TABLE IF NOT EXISTS guarded_log (aggregate_id VARCHAR(64) NOT NULL,"
            + " version BIGINT NOT NULL, PRIMARY KEY (aggregate_id, version))");
    execute("DELETE FROM guarded_head");
    execute("DELETE FROM guarded_log");
    execute("DELETE FROM outbox_inbox");
    execute("DELETE FROM outbox_inbox_version");
  }

  /** One delivery in a transaction of its own that commits. */
  private Verdict deliver(Inbox in, UUID id, String aggregate, long version, OnGap onGap)
      throws SQLException {
    try (Connection c = transaction()) {
      Verdict v = in.accept(c, "billing", id, ORDER, aggregate, version, onGap);
      c.commit();
      return v;
    }
  }

  private Verdict deliver(UUID id, String aggregate, long version) throws SQLException {
    return deliver(inbox, id, aggregate, version, OnGap.HOLD);
  }

  private long lastApplied(String aggregate) throws SQLException {
    return count(
        "SELECT COALESCE(MAX(version), -1) FROM outbox_inbox_version WHERE aggregate_id = '"
            + aggregate
            + "'");
  }

  private long inboxRows() throws SQLException {
    return count("SELECT COUNT(*) FROM outbox_inbox");
  }

  @Test
  void the_next_version_is_new_and_recorded_with_its_id() throws Exception {
    assertThat(deliver(UUID.randomUUID(), "o-1", 1)).isEqualTo(Verdict.NEW);
    assertThat(deliver(UUID.randomUUID(), "o-1", 2)).isEqualTo(Verdict.NEW);
    assertThat(deliver(UUID.randomUUID(), "o-1", 3)).isEqualTo(Verdict.NEW);

    assertThat(lastApplied("o-1")).isEqualTo(3);
    assertThat(inboxRows()).isEqualTo(3);
  }

  @Test
  void the_first_event_of_an_aggregate_is_new_whatever_its_version() throws Exception {
    assertThat(deliver(UUID.randomUUID(), "o-1", 57)).isEqualTo(Verdict.NEW);
    assertThat(deliver(UUID.randomUUID(), "o-1", 58)).isEqualTo(Verdict.NEW);
    assertThat(deliver(UUID.randomUUID(), "o-1", 12)).isEqualTo(Verdict.STALE);
  }

  @Test
  void with_a_strict_start_an_aggregate_expects_version_one_first() throws Exception {
    Inbox strict = Inbox.builder().strictStart(true).build();
    UUID second = UUID.randomUUID();

    assertThat(deliver(strict, second, "o-1", 2, OnGap.HOLD)).isEqualTo(Verdict.GAP);
    assertThat(deliver(strict, UUID.randomUUID(), "o-1", 1, OnGap.HOLD)).isEqualTo(Verdict.NEW);
    assertThat(deliver(strict, second, "o-1", 2, OnGap.HOLD)).isEqualTo(Verdict.NEW);
  }

  @Test
  void a_redelivered_event_is_a_duplicate_whatever_version_it_carries() throws Exception {
    UUID id = UUID.randomUUID();
    assertThat(deliver(id, "o-1", 1)).isEqualTo(Verdict.NEW);

    assertThat(deliver(id, "o-1", 1)).isEqualTo(Verdict.DUPLICATE);
    assertThat(deliver(inbox, id, "o-1", 9, OnGap.FAIL)).isEqualTo(Verdict.DUPLICATE);
    assertThat(lastApplied("o-1")).isEqualTo(1);
  }

  @Test
  void a_stale_event_is_recorded_so_that_its_redelivery_is_a_duplicate() throws Exception {
    deliver(UUID.randomUUID(), "o-1", 1);
    deliver(UUID.randomUUID(), "o-1", 2);
    UUID late = UUID.randomUUID();

    assertThat(deliver(late, "o-1", 2)).isEqualTo(Verdict.STALE);
    assertThat(deliver(late, "o-1", 2)).isEqualTo(Verdict.DUPLICATE);
    assertThat(lastApplied("o-1")).isEqualTo(2);
  }

  @Test
  void a_gap_held_back_records_nothing_and_the_event_is_new_once_the_missing_one_came()
      throws Exception {
    deliver(UUID.randomUUID(), "o-1", 1);
    UUID third = UUID.randomUUID();

    assertThat(deliver(third, "o-1", 3)).isEqualTo(Verdict.GAP); // committed, yet nothing kept
    assertThat(lastApplied("o-1")).isEqualTo(1);
    assertThat(inboxRows()).isEqualTo(1);

    assertThat(deliver(UUID.randomUUID(), "o-1", 2)).isEqualTo(Verdict.NEW);
    assertThat(deliver(third, "o-1", 3)).isEqualTo(Verdict.NEW);
  }

  @Test
  void a_gap_applied_records_its_version_and_the_skipped_ones_become_stale() throws Exception {
    deliver(UUID.randomUUID(), "o-1", 1);

    assertThat(deliver(inbox, UUID.randomUUID(), "o-1", 4, OnGap.APPLY)).isEqualTo(Verdict.GAP);
    assertThat(lastApplied("o-1")).isEqualTo(4);
    assertThat(deliver(UUID.randomUUID(), "o-1", 2)).isEqualTo(Verdict.STALE);
    assertThat(deliver(UUID.randomUUID(), "o-1", 5)).isEqualTo(Verdict.NEW);
  }

  @Test
  void a_gap_that_fails_names_the_versions_and_records_nothing() throws Exception {
    deliver(UUID.randomUUID(), "o-1", 1);
    UUID fourth = UUID.randomUUID();
    try (Connection c = transaction()) {
      assertThatThrownBy(() -> inbox.accept(c, "billing", fourth, ORDER, "o-1", 4, OnGap.FAIL))
          .isInstanceOfSatisfying(
              InboxGapException.class,
              e -> {
                assertThat(e.consumer()).isEqualTo("billing");
                assertThat(e.aggregateType()).isEqualTo(ORDER);
                assertThat(e.aggregateId()).isEqualTo("o-1");
                assertThat(e.eventId()).isEqualTo(fourth);
                assertThat(e.expectedVersion()).isEqualTo(2);
                assertThat(e.receivedVersion()).isEqualTo(4);
              })
          .hasMessageContaining("expects version 2 next")
          .hasMessageContaining("carries version 4: versions 2 to 3 are missing");
      c.commit(); // even committed, the failed event left nothing
    }
    assertThat(inboxRows()).isEqualTo(1);
    assertThat(lastApplied("o-1")).isEqualTo(1);
  }

  @Test
  void everything_rolls_back_with_the_callers_transaction() throws Exception {
    UUID id = UUID.randomUUID();
    try (Connection c = transaction()) {
      assertThat(inbox.accept(c, "billing", id, ORDER, "o-1", 1, OnGap.HOLD))
          .isEqualTo(Verdict.NEW);
      assertThat(inbox.accept(c, "billing", UUID.randomUUID(), ORDER, "o-1", 2, OnGap.HOLD))
          .as("the transaction sees its own records")
          .isEqualTo(Verdict.NEW);
      c.rollback();
    }
    assertThat(inboxRows()).isZero();
    assertThat(lastApplied("o-1")).isEqualTo(-1);
    assertThat(deliver(id, "o-1", 1)).isEqualTo(Verdict.NEW);
  }

  @Test
  void consumers_and_aggregates_keep_versions_of_their_own() throws Exception {
    UUID id = UUID.randomUUID();
    try (Connection c = transaction()) {
      assertThat(inbox.accept(c, "billing", id, ORDER, "o-1", 1, OnGap.HOLD))
          .isEqualTo(Verdict.NEW);
      assertThat(inbox.accept(c, "shipping", id, ORDER, "o-1", 1, OnGap.HOLD))
          .isEqualTo(Verdict.NEW);
      assertThat(inbox.accept(c, "billing", UUID.randomUUID(), ORDER, "o-2", 1, OnGap.HOLD))
          .isEqualTo(Verdict.NEW);
      assertThat(inbox.accept(c, "billing", UUID.randomUUID(), "Invoice", "o-1", 1, OnGap.HOLD))
          .isEqualTo(Verdict.NEW);
      c.commit();
    }
    assertThat(count("SELECT COUNT(*) FROM outbox_inbox_version")).isEqualTo(4);
  }

  @Test
  void bad_input_is_refused_before_anything_is_written_naming_the_field() throws Exception {
    UUID id = UUID.randomUUID();
    try (Connection c = transaction()) {
      assertThatThrownBy(() -> inbox.accept(c, "billing", id, ORDER, "o-1", 0, OnGap.HOLD))
          .isInstanceOfSatisfying(
              InvalidEventException.class, e -> assertThat(e.field()).isEqualTo("version"))
          .hasMessageContaining("version must be 1 or more, was 0");
      assertThatThrownBy(() -> inbox.accept(c, "billing", id, null, "o-1", 1, OnGap.HOLD))
          .isInstanceOfSatisfying(
              InvalidEventException.class, e -> assertThat(e.field()).isEqualTo("aggregateType"));
      assertThatThrownBy(() -> inbox.accept(c, "billing", id, ORDER, " ", 1, OnGap.HOLD))
          .isInstanceOfSatisfying(
              InvalidEventException.class, e -> assertThat(e.field()).isEqualTo("aggregateId"))
          .hasMessageContaining("aggregateId must not be blank");
      assertThatThrownBy(
              () -> inbox.accept(c, "billing", id, ORDER, "o".repeat(256), 1, OnGap.HOLD))
          .isInstanceOf(InvalidEventException.class)
          .hasMessageContaining("the limit is 255");
      assertThatThrownBy(() -> inbox.accept(c, "", id, ORDER, "o-1", 1, OnGap.HOLD))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("consumer must be 1 to 200 characters");
      assertThatThrownBy(() -> inbox.accept(c, "x".repeat(201), id, ORDER, "o-1", 1, OnGap.HOLD))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> inbox.accept(c, "billing", id, ORDER, "o-1", 1, null))
          .isInstanceOf(NullPointerException.class)
          .hasMessage("onGap");
      c.rollback();
    }
    try (Connection c = ds.getConnection()) {
      assertThatThrownBy(() -> inbox.accept(c, "billing", id, ORDER, "o-1", 1, OnGap.HOLD))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("setAutoCommit(false)");
    }
    assertThat(inboxRows()).isZero();
  }

  @Test
  void a_missing_version_table_is_named_with_the_ddl_to_run() throws Exception {
    Inbox missing = Inbox.builder().versionTable("no_such_versions").build();
    try (Connection c = transaction()) {
      assertThatThrownBy(
              () -> missing.accept(c, "billing", UUID.randomUUID(), ORDER, "o-1", 1, OnGap.HOLD))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("inbox version table no_such_versions does not exist")
          .hasMessageContaining(
              "OutboxSchema.createInbox(connection, \"outbox_inbox\", \"no_such_versions\","
                  + " Dialect."
                  + dialect
                  + ".preset())");
      c.rollback();
    }
  }

  @Test
  void a_version_table_of_another_name_is_created_and_used() throws Exception {
    execute("DROP TABLE IF EXISTS guard_versions");
    try (Connection c = ds.getConnection()) {
      OutboxSchema.createInbox(c, "outbox_inbox", "guard_versions", dialect.preset());
    }
    Inbox named = Inbox.builder().versionTable("guard_versions").build();

    assertThat(deliver(named, UUID.randomUUID(), "o-1", 1, OnGap.HOLD)).isEqualTo(Verdict.NEW);
    assertThat(count("SELECT MAX(version) FROM guard_versions")).isEqualTo(1);
    assertThat(lastApplied("o-1")).isEqualTo(-1);
  }

  /**
   * Threads deliver the versions of one aggregate in a shuffled order, applying gaps: each must
   * judge by the version the last one committed, so the effects only ever move forward and the last
   * applied version ends at the highest. Without the row lock two deliveries would both read the
   * same version and the later commit would set it back.
   */
  @Test
  void concurrent_deliveries_of_one_aggregate_never_move_its_version_back() throws Exception {
    int versions = 80;
    List<Long> queue = new ArrayList<>();
    for (long v = 1; v <= versions; v++) {
      queue.add(v);
    }
    Collections.shuffle(queue, new Random(7));
    LinkedList<Long> pending = new LinkedList<>(queue);
    Map<Verdict, AtomicInteger> verdicts = new ConcurrentHashMap<>();
    List<String> violations = Collections.synchronizedList(new ArrayList<>());
    runThreads(
        4,
        () -> {
          while (true) {
            Long v;
            synchronized (pending) {
              v = pending.poll();
            }
            if (v == null) {
              return null;
            }
            try (Connection c = transaction()) {
              readFirst(c);
              Verdict verdict =
                  inbox.accept(c, "billing", UUID.randomUUID(), ORDER, "hot", v, OnGap.APPLY);
              verdicts.computeIfAbsent(verdict, k -> new AtomicInteger()).incrementAndGet();
              if (verdict == Verdict.NEW || verdict == Verdict.GAP) {
                if (!moveForward(c, "hot", v)) {
                  violations.add("version " + v + " applied after a later one");
                }
              }
              c.commit();
            }
          }
        },
        () -> {
          synchronized (pending) {
            return pending.size();
          }
        });

    assertThat(violations).isEmpty();
    assertThat(lastApplied("hot")).isEqualTo(versions);
    assertThat(count("SELECT version FROM guarded_head")).isEqualTo(versions);
    assertThat(verdicts.keySet()).doesNotContain(Verdict.DUPLICATE);
    long applied =
        verdicts.getOrDefault(Verdict.NEW, new AtomicInteger()).get()
            + verdicts.getOrDefault(Verdict.GAP, new AtomicInteger()).get();
    assertThat(count("SELECT COUNT(*) FROM guarded_log")).isEqualTo(applied);
  }

  /**
   * The acceptance run: the 5,000 events of 50 aggregates delivered shuffled and a quarter of them
   * twice (some 6,250 deliveries, plus every redelivery of a held gap: about 11,000 in all), by
   * threads of a consumer that holds back every gap and has the event redelivered a little later,
   * as a broker's redelivery would. Every aggregate ends with each of its versions applied exactly
   * once, in version order.
   */
  @Test
  void shuffled_duplicated_deliveries_holding_gaps_apply_every_version_once_in_order()
      throws Exception {
    int aggregates = 50;
    int versions = 100;
    Random random = new Random(42);
    Inbox strict = Inbox.builder().strictStart(true).build();
    List<Delivery> stream = shuffledStream(aggregates, versions, random);
    Broker broker = new Broker(stream, random);
    List<String> violations = Collections.synchronizedList(new ArrayList<>());
    Map<Verdict, AtomicInteger> verdicts = new EnumMap<>(Verdict.class);
    for (Verdict v : Verdict.values()) {
      verdicts.put(v, new AtomicInteger());
    }
    runThreads(
        4,
        () -> {
          Delivery d;
          while ((d = broker.take()) != null) {
            boolean requeue;
            try (Connection c = transaction()) {
              readFirst(c);
              Verdict verdict =
                  strict.accept(c, "billing", d.id, ORDER, d.aggregate, d.version, OnGap.HOLD);
              verdicts.get(verdict).incrementAndGet();
              if (verdict == Verdict.NEW && !applyNext(c, d.aggregate, d.version)) {
                violations.add(d.aggregate + " version " + d.version + " applied out of order");
              }
              requeue = verdict == Verdict.GAP;
              if (requeue) {
                c.rollback();
              } else {
                c.commit();
              }
            }
            broker.done(d, requeue);
          }
          return null;
        },
        broker.deliveries::get);

    assertThat(violations).isEmpty();
    // Every delivery of the stream was made, and gaps were held back and redelivered.
    assertThat(verdicts.get(Verdict.GAP).get()).isPositive();
    assertThat(broker.deliveries.get()).isEqualTo(stream.size() + verdicts.get(Verdict.GAP).get());
    assertThat(verdicts.get(Verdict.NEW).get()).isEqualTo(aggregates * versions);
    assertThat(verdicts.get(Verdict.DUPLICATE).get()).isPositive();
    assertThat(verdicts.get(Verdict.STALE).get()).isZero();
    assertThat(count("SELECT COUNT(*) FROM guarded_log")).isEqualTo(aggregates * versions);
    assertThat(count("SELECT COUNT(*) FROM guarded_head WHERE version = " + versions))
        .isEqualTo(aggregates);
    assertThat(
            count(
                "SELECT COUNT(*) FROM outbox_inbox_version WHERE version = "
                    + versions
                    + " AND consumer = 'billing'"))
        .isEqualTo(aggregates);
  }

  /**
   * A consumer that reads before it accepts: under REPEATABLE READ (MySQL's and MariaDB's default)
   * its snapshot is then older than the commits it waits for, which the guard must not judge by.
   */
  private static void readFirst(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM guarded_log");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
    }
  }

  /** The effect of applying the next version: only from the one before, logged once. */
  private boolean applyNext(Connection c, String aggregate, long version) throws SQLException {
    int moved;
    if (version == 1) {
      try (PreparedStatement ps =
          c.prepareStatement("INSERT INTO guarded_head (aggregate_id, version) VALUES (?, 1)")) {
        ps.setString(1, aggregate);
        moved = ps.executeUpdate();
      }
    } else {
      try (PreparedStatement ps =
          c.prepareStatement(
              "UPDATE guarded_head SET version = ? WHERE aggregate_id = ? AND version = ?")) {
        ps.setLong(1, version);
        ps.setString(2, aggregate);
        ps.setLong(3, version - 1);
        moved = ps.executeUpdate();
      }
    }
    log(c, aggregate, version);
    return moved == 1;
  }

  /** The effect of applying a version, gaps allowed: only ever forward, logged once. */
  private boolean moveForward(Connection c, String aggregate, long version) throws SQLException {
    int moved;
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE guarded_head SET version = ? WHERE aggregate_id = ? AND version < ?")) {
      ps.setLong(1, version);
      ps.setString(2, aggregate);
      ps.setLong(3, version);
      moved = ps.executeUpdate();
    }
    if (moved == 0 && count(c, aggregate) == 0) {
      try (PreparedStatement ps =
          c.prepareStatement("INSERT INTO guarded_head (aggregate_id, version) VALUES (?, ?)")) {
        ps.setString(1, aggregate);
        ps.setLong(2, version);
        moved = ps.executeUpdate();
      }
    }
    log(c, aggregate, version);
    return moved == 1;
  }

  private static long count(Connection c, String aggregate) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT COUNT(*) FROM guarded_head WHERE aggregate_id = ?")) {
      ps.setString(1, aggregate);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static void log(Connection c, String aggregate, long version) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO guarded_log (aggregate_id, version) VALUES (?, ?)")) {
      ps.setString(1, aggregate);
      ps.setLong(2, version);
      ps.executeUpdate();
    }
  }

  /**
   * Runs {@code work} on {@code threads} threads until each returns. Fails if {@code progress} (a
   * count of deliveries made) stands still for a minute: the consumers are stuck. A bound on the
   * whole run would instead fail a slow but moving run on a loaded machine.
   */
  private static void runThreads(
      int threads, java.util.concurrent.Callable<Void> work, IntSupplier progress)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Void>> running = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        running.add(pool.submit(work));
      }
      int seen = progress.getAsInt();
      long movedAt = System.nanoTime();
      for (Future<Void> f : running) {
        while (true) {
          try {
            f.get(1, TimeUnit.SECONDS);
            break;
          } catch (java.util.concurrent.TimeoutException stillRunning) {
            int now = progress.getAsInt();
            if (now != seen) {
              seen = now;
              movedAt = System.nanoTime();
            } else if (System.nanoTime() - movedAt > TimeUnit.MINUTES.toNanos(1)) {
              throw new AssertionError("no delivery for a minute after " + now + ": stuck");
            }
          }
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Each aggregate's events in version order, interleaved at random across aggregates, then
   * disordered locally (each moved up to 60 places on) and a quarter of them delivered twice.
   */
  private static List<Delivery> shuffledStream(int aggregates, int versions, Random random) {
    List<List<Delivery>> perAggregate = new ArrayList<>();
    for (int a = 0; a < aggregates; a++) {
      List<Delivery> events = new ArrayList<>();
      for (long v = 1; v <= versions; v++) {
        events.add(new Delivery(UUID.randomUUID(), "o-" + a, v));
      }
      perAggregate.add(events);
    }
    List<Delivery> stream = new ArrayList<>();
    int[] next = new int[aggregates];
    int left = aggregates * versions;
    while (left > 0) {
      int a = random.nextInt(aggregates);
      if (next[a] < versions) {
        Delivery d = perAggregate.get(a).get(next[a]++);
        stream.add(d);
        if (random.nextInt(4) == 0) {
          stream.add(new Delivery(d.id, d.aggregate, d.version));
        }
        left--;
      }
    }
    for (int i = stream.size() - 1; i > 0; i--) {
      int j = Math.min(stream.size() - 1, i + random.nextInt(60));
      Collections.swap(stream, i, j);
    }
    return stream;
  }

  private static final class Delivery {
    final UUID id;
    final String aggregate;
    final long version;

    Delivery(UUID id, String aggregate, long version) {
      this.id = id;
      this.aggregate = aggregate;
      this.version = version;
    }
  }

  /**
   * A queue of deliveries that puts a held-back one back a little way behind the head, and ends
   * when it is empty and no delivery is under way.
   */
  private static final class Broker {
    private final LinkedList<Delivery> queue;
    private final Random random;
    private int underway;
    final AtomicInteger deliveries = new AtomicInteger();

    Broker(List<Delivery> stream, Random random) {
      this.queue = new LinkedList<>(stream);
      this.random = random;
    }

    synchronized Delivery take() throws InterruptedException {
      while (queue.isEmpty() && underway > 0) {
        wait();
      }
      Delivery d = queue.poll();
      if (d != null) {
        underway++;
        deliveries.incrementAndGet();
      }
      return d;
    }

    synchronized void done(Delivery d, boolean requeue) {
      if (requeue) {
        queue.add(Math.min(queue.size(), 20 + random.nextInt(60)), d);
      }
      underway--;
      notifyAll();
    }
  }
}
