package dev.outboxkit.testing.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import dev.outboxkit.jdbc.DeadEvent;
import dev.outboxkit.jdbc.DrainReport;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.Inbox;
import dev.outboxkit.jdbc.InboxGapException;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.jdbc.OutboxSnapshot;
import dev.outboxkit.jdbc.OutboxStorageException;
import dev.outboxkit.jdbc.OutboxWriter;
import dev.outboxkit.jdbc.dialect.ErrorCodes;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import dev.outboxkit.testing.RecordingTransport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What OutboxKit's guarantees rest on, proved as JUnit 5 tests on your own database with your
 * dialect: extend this class, say where the database is and which dialect speaks to it, and the
 * tests create an outbox table and an inbox table of their own, drive the real writer, relays,
 * admin and inbox against them, and drop the tables when done.
 *
 * <pre>{@code
 * class OracleDialectContractTest extends DialectContract {
 *   static final HikariDataSource ds = pool("jdbc:oracle:thin:@//db:1521/test");
 *   protected DataSource dataSource() { return ds; }
 *   protected SqlDialect dialect() { return OracleDialect.INSTANCE; }
 * }
 * }</pre>
 *
 * <p>What it checks: the schema is created (twice, harmlessly) with the documented columns; appends
 * join the caller's transaction; concurrent relays never claim the same row; leases run by the
 * database clock and acknowledgements are fenced, so a relay whose lease ran out cannot overwrite
 * the next owner's outcome, and a lost lease charges no attempt; ordered relays keep each
 * aggregate's append order, a DEAD event holding its aggregate back until replayed; retries wait by
 * the database clock; DEAD, replay and discard; expiry; retention; the inbox's exactly-once mark,
 * and its ordering guard judging an aggregate's versions, both also under concurrency; bounded
 * statement time; and the admin's counts, snapshot and {@code drainUntilDone}. Only the public API
 * is used, plus plain {@code SELECT}s on the tables to read states, so a failure points at the
 * dialect's statements or DDL.
 *
 * <p>The table names are random per test class by default, so the kit can run on a shared database
 * (see {@link #table()}). The data source needs room for about ten connections. One instance serves
 * all tests of a class ({@link TestInstance.Lifecycle#PER_CLASS}); each test deletes its rows when
 * done. The tests are final: a dialect passes them as they are.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class DialectContract {
  /** The columns the outbox table must have, as documented in the shipped DDL. */
  private static final List<String> OUTBOX_COLUMNS =
      List.of(
          "seq",
          "id",
          "aggregate_type",
          "aggregate_id",
          "event_type",
          "schema_version",
          "destination",
          "tenant",
          "payload",
          "content_type",
          "headers",
          "occurred_at",
          "available_at",
          "expires_at",
          "status",
          "attempts",
          "last_error",
          "published_at",
          "lease_owner",
          "lease_until",
          "lease_losses",
          "aggregate_version",
          "supersede_key",
          "uncertain_sends",
          "priority");

  private static final List<String> INBOX_COLUMNS = List.of("consumer", "event_id", "processed_at");

  private static final List<String> VERSION_COLUMNS =
      List.of("consumer", "aggregate_type", "aggregate_id", "version", "updated_at");

  private final String defaultTable =
      "outbox_kit_" + Long.toHexString(new Random().nextLong() & 0xffff_ffffL);
  private final List<OutboxRelay> relays = new ArrayList<>();
  private boolean tablesCreated;

  /** For subclasses: one per database and dialect under test. */
  protected DialectContract() {}

  /**
   * The database under test. Called often: return the same pooled data source each time.
   *
   * @return a data source with room for about ten connections
   */
  protected abstract DataSource dataSource();

  /**
   * The dialect under test: your own, or a preset such as {@code Dialect.POSTGRESQL.preset()}.
   *
   * @return the dialect every component of the tests is built with
   */
  protected abstract SqlDialect dialect();

  /**
   * The outbox table the tests create, fill and drop; default {@code outbox_kit_} and eight random
   * hex digits, new for each test class, so runs on a shared database do not meet. Override with a
   * schema-qualified name to test one.
   *
   * @return {@code name} or {@code schema.name}
   */
  protected String table() {
    return defaultTable;
  }

  /**
   * The inbox table the tests create, fill and drop; default {@link #table()} with {@code _inbox}.
   * Its ordering guard's version table is named after it, with {@code _version}.
   *
   * @return {@code name} or {@code schema.name}
   */
  protected String inboxTable() {
    return table() + "_inbox";
  }

  /** The inbox's version table, as {@link Inbox} and {@link OutboxSchema} name it by default. */
  private String versionTable() {
    return inboxTable() + "_version";
  }

  /**
   * Stretches the tests' deadlines, and the leases, delays and timeouts they set up, by this factor
   * (default 1), for a slow database or a loaded machine. The tests wait for states, not for time:
   * a larger factor makes a failing run slower, and a passing one only as much slower as its leases
   * and delays grow.
   *
   * @return a factor of at least 1
   */
  protected double timeScale() {
    return 1.0;
  }

  /**
   * Whether the dialect bounds the time of the relay's transactions by {@code statementTimeout}
   * (its {@code boundTransaction} step); default true. Return false for a database that cannot, and
   * the test of bounded statement time is skipped with that reason.
   *
   * @return false to skip the test of bounded statement time
   */
  protected boolean boundsStatementTime() {
    return true;
  }

  /**
   * Whether the tables are dropped after the class's last test (default true). Return false to look
   * at them after a failure.
   *
   * @return false to keep the tables
   */
  protected boolean dropTablesAfterwards() {
    return true;
  }

  // ----------------------------------------------------------------------------- lifecycle

  @BeforeEach
  final void createTables() throws SQLException {
    if (tablesCreated) {
      return;
    }
    createSchema();
    tablesCreated = true;
  }

  @AfterEach
  final void closeRelaysAndDeleteRows() throws SQLException {
    for (OutboxRelay relay : relays) {
      relay.close();
    }
    relays.clear();
    execute("DELETE FROM " + table());
    execute("DELETE FROM " + inboxTable());
    execute("DELETE FROM " + versionTable());
  }

  @AfterAll
  final void dropTables() throws SQLException {
    if (tablesCreated && dropTablesAfterwards()) {
      execute("DROP TABLE " + table());
      execute("DROP TABLE " + inboxTable());
      execute("DROP TABLE " + versionTable());
    }
  }

  // -------------------------------------------------------------------------------- schema

  @Test
  final void the_schema_is_created_with_the_documented_columns_and_creating_it_again_is_harmless()
      throws Exception {
    append(1, i -> event("kept", i));

    createSchema();
    createSchema();

    assertEquals(1, count("SELECT COUNT(*) FROM " + table()), "creating again kept the rows");
    assertColumns(table(), OUTBOX_COLUMNS);
    assertColumns(inboxTable(), INBOX_COLUMNS);
    assertColumns(versionTable(), VERSION_COLUMNS);
    Row kept = row("kept");
    assertEquals("PENDING", kept.status, "a new row starts PENDING");
    assertEquals(0, kept.attempts);
    assertEquals(0, kept.leaseLosses);
    assertNull(kept.publishedAt, "a new row has not finished");
  }

  // -------------------------------------------------------------------------------- append

  @Test
  final void an_append_commits_and_rolls_back_with_the_callers_transaction() throws Exception {
    OutboxWriter writer = writer();
    OutboxEvent committed = event("committed", 0);
    OutboxEvent rolledBack = event("rolled-back", 0);
    List<OutboxEvent> batch = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      batch.add(event("batch", i));
    }
    try (Connection c = transaction()) {
      writer.append(c, committed);
      assertEquals(
          0,
          countRowsSeenByOthers("committed"),
          "an uncommitted append is not visible to other sessions");
      c.commit();
    }
    try (Connection c = transaction()) {
      writer.append(c, rolledBack);
      c.rollback();
    }
    try (Connection c = transaction()) {
      writer.appendAll(c, batch);
      c.commit();
    }

    assertEquals(1, countRows("committed"));
    assertEquals(0, countRows("rolled-back"), "a rolled back append left a row");
    assertEquals(5, countRows("batch"));
    RecordingTransport transport = new RecordingTransport();
    assertEquals(6, relay(transport, "append").drain());
    List<OutboxEvent> expected = new ArrayList<>();
    expected.add(committed);
    expected.addAll(batch);
    assertEquals(expected, transport.deliveredEvents(), "delivered once each, in append order");
    assertEquals(6L, admin().count(EventStatus.PUBLISHED));
  }

  // ------------------------------------------------------------------------ claims, leases

  @Test
  final void concurrent_relays_deliver_every_event_exactly_once() throws Exception {
    int events = 2_000;
    List<OutboxEvent> appended = append(events, i -> event("a" + (i % 200), i));
    RecordingTransport transport = new RecordingTransport();
    for (int r = 0; r < 4; r++) {
      relay(transport, "claimer-" + r, b -> b.ordered(false)).start();
    }

    awaitPublished(events, Duration.ofSeconds(60));

    List<OutboxMessage> sent = new ArrayList<>();
    for (RecordingTransport.Attempt a : transport.attempts()) {
      sent.add(a.message());
    }
    assertEquals(events, sent.size(), "every event sent once: no two relays claimed the same row");
    assertEquals(new HashSet<>(appended), new HashSet<>(transport.deliveredEvents()));
    Map<EventStatus, Long> counts = admin().countByStatus();
    assertEquals(events, counts.get(EventStatus.PUBLISHED), counts.toString());
    assertEquals(0L, counts.get(EventStatus.PENDING), counts.toString());
    assertEquals(0L, counts.get(EventStatus.IN_FLIGHT), counts.toString());
  }

  @Test
  final void a_relay_whose_lease_ran_out_cannot_overwrite_the_next_owners_outcome()
      throws Exception {
    append(1, i -> event("taken-over", i));
    StallableDataSource stalling = new StallableDataSource(dataSource(), scaled(60));
    OutboxRelay stale = stallingRelay(stalling);
    OutboxRelay next =
        relay(
            new RecordingTransport().respondWith(m -> SendResult.reject("next owner rejects")),
            "next-owner");

    Thread staleRun = runInBackground(stale, stalling);
    try {
      awaitStatus("taken-over", "IN_FLIGHT");
      assertTrue(
          byDatabaseClock("taken-over", "lease_until >", Duration.ZERO)
              && byDatabaseClock("taken-over", "lease_until <=", scaled(3)),
          "the claim holds the row for the lease it asked for, by the database clock");
      assertEquals(0, next.runOnce(), "the stalled relay's lease still holds");
      await(() -> next.runOnce() == 1, 30, () -> "the next relay takes over the expired lease");
      Row taken = row("taken-over");
      assertEquals("DEAD", taken.status);
      assertEquals("next owner rejects", taken.lastError);
    } finally {
      stalling.release();
      staleRun.join(scaled(30).toMillis());
    }
    assertFalse(staleRun.isAlive(), "the stalled relay finished once released");

    Row after = row("taken-over");
    assertEquals("DEAD", after.status, "the stale relay's 'delivered' overwrote the next owner's");
    assertEquals("next owner rejects", after.lastError);
    assertEquals(1, after.attempts, "only the next owner's rejection is charged");
    assertEquals(1, after.leaseLosses, "the lost lease is counted apart");
  }

  @Test
  final void an_expired_lease_goes_back_to_pending_without_charging_an_attempt() throws Exception {
    List<OutboxEvent> events = append(3, i -> event("expired-" + i, i));
    StallableDataSource stalling = new StallableDataSource(dataSource(), scaled(60));
    OutboxRelay stale = stallingRelay(stalling);
    RecordingTransport nextTransport = new RecordingTransport();
    OutboxRelay next = relay(nextTransport, "next-owner", b -> b.ordered(false));

    Thread staleRun = runInBackground(stale, stalling);
    try {
      awaitStatus("expired-0", "IN_FLIGHT");
      await(() -> next.runOnce() == 3, 30, () -> "the next relay takes the expired leases");
    } finally {
      stalling.release();
      staleRun.join(scaled(30).toMillis());
    }

    assertEquals(new HashSet<>(events), new HashSet<>(nextTransport.deliveredEvents()));
    for (int i = 0; i < 3; i++) {
      Row r = row("expired-" + i);
      assertEquals("PUBLISHED", r.status);
      assertEquals(0, r.attempts, "a lease that ran out is not the event's failure");
      assertEquals(1, r.leaseLosses);
    }
  }

  // -------------------------------------------------------------------------- ordered mode

  @Test
  final void ordered_relays_keep_each_aggregates_append_order_across_retries() throws Exception {
    int aggregates = 20;
    int perAggregate = 25;
    append(aggregates * perAggregate, i -> event("ordered-" + (i % aggregates), i / aggregates));
    Random random = new Random(11);
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m -> {
                  synchronized (random) {
                    return random.nextInt(8) == 0
                        ? SendResult.retry("flaky", null)
                        : SendResult.delivered();
                  }
                });
    for (int r = 0; r < 3; r++) {
      relay(transport, "ordered-" + r, b -> b.maxAttempts(100)).start();
    }

    awaitPublished(aggregates * perAggregate, Duration.ofSeconds(60));

    // Per aggregate, each event is sent (and retried) only after its predecessor was delivered.
    Map<String, Integer> next = new HashMap<>();
    for (RecordingTransport.Attempt a : transport.attempts()) {
      OutboxEvent e = a.message().event();
      int expected = next.getOrDefault(e.aggregateId(), 0);
      assertEquals(expected, number(e), e.aggregateId() + " sent out of order");
      if (a.result().isDelivered()) {
        next.put(e.aggregateId(), expected + 1);
      }
    }
    for (int g = 0; g < aggregates; g++) {
      assertEquals(perAggregate, next.get("ordered-" + g), "ordered-" + g + " delivered");
    }
  }

  @Test
  final void in_ordered_mode_a_dead_event_holds_back_its_aggregate_until_replayed()
      throws Exception {
    List<OutboxEvent> events = append(10, i -> event(i % 2 == 0 ? "even" : "odd", i));
    UUID poison = events.get(2).id();
    AtomicBoolean rejected = new AtomicBoolean();
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m ->
                    m.event().id().equals(poison) && rejected.compareAndSet(false, true)
                        ? SendResult.reject("bad")
                        : SendResult.delivered());
    OutboxRelay relay = relay(transport, "ordered-dead");

    DrainReport report = relay.drainUntilDone(scaled(10));

    assertEquals(List.of(0, 1, 3, 5, 7, 9), numbers(transport.deliveredEvents()));
    assertEquals(3, report.heldBehindDead(), "even 4, 6 and 8 wait: " + report);
    assertEquals(3L, admin().count(EventStatus.PENDING));
    assertTrue(admin().replay(poison));
    relay.drainUntilDone(scaled(10));
    List<OutboxEvent> even = new ArrayList<>();
    for (OutboxEvent e : transport.deliveredEvents()) {
      if (e.aggregateId().equals("even")) {
        even.add(e);
      }
    }
    assertEquals(List.of(0, 2, 4, 6, 8), numbers(even), "after the replay, in append order");
    assertEquals(10L, admin().count(EventStatus.PUBLISHED));
  }

  @Test
  final void due_events_of_higher_priority_are_claimed_first_without_reordering_an_aggregate()
      throws Exception {
    int[] priorities = {0, -2, 5, 0, -2, 5};
    append(
        priorities.length,
        i ->
            OutboxEvent.builder("Contract", "unordered-" + i, "Checked")
                .payload("{}")
                .header("n", Integer.toString(i))
                .priority(priorities[i])
                .build());
    RecordingTransport unordered = new RecordingTransport();
    OutboxRelay one = relay(unordered, "priority", b -> b.ordered(false).batchSize(1));
    while (one.runOnce() > 0) {
      // one event per round: the claim order is the delivery order
    }
    assertEquals(List.of(2, 5, 0, 3, 1, 4), numbers(unordered.deliveredEvents()));

    // Ordered: the urgent second event of A waits for A's first; B's head goes before both.
    append(
        3,
        i ->
            OutboxEvent.builder("Contract", i < 2 ? "A" : "B", "Checked")
                .payload("{}")
                .header("n", Integer.toString(i))
                .priority(i == 0 ? 0 : i == 1 ? 9 : 5)
                .build());
    RecordingTransport ordered = new RecordingTransport();
    OutboxRelay heads = relay(ordered, "priority-ordered", b -> b.ordered(true).batchSize(1));
    while (heads.runOnce() > 0) {
      // one event per round
    }
    assertEquals(List.of(2, 0, 1), numbers(ordered.deliveredEvents()));
  }

  // ------------------------------------------------------------------ retries, DEAD, expiry

  @Test
  final void a_retry_waits_by_the_database_clock_charges_an_attempt_and_is_delivered_later()
      throws Exception {
    append(1, i -> event("retry-soon", i));
    append(1, i -> event("retry-later", i));
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m -> {
                  if (m.attempt() > 1) {
                    return SendResult.delivered();
                  }
                  return m.event().aggregateId().equals("retry-later")
                      ? SendResult.retry("busy", Duration.ofHours(1))
                      : SendResult.retry("busy", scaled(1));
                });
    OutboxRelay relay = relay(transport, "retry");

    assertEquals(2, relay.runOnce());
    for (String aggregate : List.of("retry-soon", "retry-later")) {
      Row r = row(aggregate);
      assertEquals("PENDING", r.status, aggregate);
      assertEquals(1, r.attempts, aggregate + ": the retry is charged");
      assertEquals("busy", r.lastError, aggregate);
    }
    assertTrue(
        byDatabaseClock("retry-later", "available_at >", Duration.ofMinutes(59))
            && byDatabaseClock("retry-later", "available_at <=", Duration.ofMinutes(61)),
        "a retry after an hour is available in an hour by the database clock");
    DrainReport report = relay.drainUntilDone(scaled(30));

    assertEquals(1, report.delivered(), "the retry due in a second: " + report);
    assertEquals(1, report.stillPending(), "the retry due in an hour: " + report);
    assertFalse(report.timedOut(), report.toString());
    assertEquals("PUBLISHED", row("retry-soon").status);
    assertEquals(1, row("retry-soon").attempts, "a delivery charges nothing");
    assertEquals("PENDING", row("retry-later").status);
    assertEquals(0, relay.runOnce(), "not due for an hour by the database clock");
  }

  @Test
  final void rejected_and_exhausted_events_go_dead_and_can_be_replayed_or_discarded()
      throws Exception {
    OutboxEvent rejected = append(1, i -> event("rejected", i)).get(0);
    OutboxEvent exhausted = append(1, i -> event("exhausted", i)).get(0);
    append(1, i -> event("fine", i));
    AtomicBoolean healed = new AtomicBoolean();
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m -> {
                  String aggregate = m.event().aggregateId();
                  if (healed.get() || aggregate.equals("fine")) {
                    return SendResult.delivered();
                  }
                  return aggregate.equals("rejected")
                      ? SendResult.reject("schema invalid")
                      : SendResult.retry("HTTP 500", null);
                });
    OutboxRelay relay = relay(transport, "dead", b -> b.maxAttempts(3));

    relay.drainUntilDone(scaled(30));

    Row r = row("rejected");
    assertEquals("DEAD", r.status);
    assertEquals("schema invalid", r.lastError);
    assertEquals(1, r.attempts);
    assertNotNull(r.publishedAt, "published_at marks when a row finished");
    Row x = row("exhausted");
    assertEquals("DEAD", x.status);
    assertEquals(3, x.attempts);
    assertTrue(x.lastError.contains("HTTP 500"), x.lastError);
    List<DeadEvent> dead = admin().listDead(0, 10);
    assertEquals(2, dead.size(), dead.toString());
    assertEquals(rejected.id(), dead.get(0).id());
    assertEquals(exhausted.id(), dead.get(1).id());
    assertEquals(
        List.of(exhausted.id()),
        ids(admin().listDead(dead.get(0).seq(), 10)),
        "the next page starts after the given seq");

    healed.set(true);
    assertTrue(admin().replay(rejected.id()));
    assertFalse(admin().replay(rejected.id()), "no longer DEAD");
    Row replayed = row("rejected");
    assertEquals("PENDING", replayed.status);
    assertEquals(0, replayed.attempts, "a replay starts the budget afresh");
    relay.drain();
    assertEquals("PUBLISHED", row("rejected").status);

    assertTrue(admin().discard(exhausted.id()));
    assertFalse(admin().discard(exhausted.id()));
    assertEquals(0, countRows("exhausted"), "a discarded event's row is gone");
    assertEquals(0, admin().replayAllDead());
  }

  @Test
  final void an_event_past_its_expiry_is_marked_expired_and_never_sent() throws Exception {
    OutboxEvent stale =
        OutboxEvent.builder("Contract", "expiring", "Reminder")
            .payload("{}")
            .expiresAt(Instant.now().minus(Duration.ofHours(1)))
            .build();
    OutboxEvent fresh =
        OutboxEvent.builder("Contract", "fresh", "Reminder")
            .payload("{}")
            .expiresAt(Instant.now().plus(Duration.ofHours(1)))
            .build();
    try (Connection c = transaction()) {
      writer().appendAll(c, List.of(stale, fresh));
      c.commit();
    }
    RecordingTransport transport = new RecordingTransport();

    DrainReport report = relay(transport, "expiry").drainUntilDone(scaled(10));

    assertEquals(List.of(fresh), transport.deliveredEvents());
    assertEquals(1, report.expired(), report.toString());
    Row r = row("expiring");
    assertEquals("EXPIRED", r.status);
    assertEquals(0, r.attempts);
    assertNotNull(r.publishedAt, "published_at marks when a row finished");
  }

  // ----------------------------------------------------------------------------- retention

  @Test
  final void purging_removes_finished_rows_older_than_the_retention_and_keeps_the_rest()
      throws Exception {
    Duration retention = scaled(2);
    RecordingTransport transport = rejectingTheDeadAggregate("kept for inspection");
    OutboxRelay relay = relay(transport, "retention");
    append(3, i -> event("old-" + i, i));
    appendOneDeadAndOneWaiting();
    relay.drain();
    OutboxAdmin admin = admin();
    assertEquals(0, admin.purgeFinished(Duration.ofHours(1)), "nothing is an hour old");

    // Waits until the database clock says the old rows finished longer ago than the retention.
    long[] purged = {0};
    await(
        () -> (purged[0] += admin.purgeFinished(retention)) == 3,
        30,
        () -> purged[0] + " of the 3 old rows purged");
    append(2, i -> event("new-" + i, i));
    relay.drain();
    assertEquals(0, admin.purgeFinished(retention), "rows finished just now are kept");

    assertEquals(0, countRows("old-0") + countRows("old-1") + countRows("old-2"));
    assertEquals(2, countRows("new-0") + countRows("new-1"));
    assertEquals(2, admin.purgeFinished(Duration.ZERO));
    assertEquals("DEAD", row("dead").status, "DEAD rows wait for replay or discard");
    assertEquals("PENDING", row("waiting").status, "live rows are never purged");
  }

  @Test
  final void a_relay_with_retention_purges_finished_and_dead_rows_in_the_background()
      throws Exception {
    append(5, i -> event("kept-briefly-" + i, i));
    appendOneDeadAndOneWaiting();
    RecordingTransport transport = rejectingTheDeadAggregate("no");

    relay(
            transport,
            "background-retention",
            b -> b.retention(Duration.ofMillis(1)).deadRetention(Duration.ofMillis(1)))
        .start();

    await(
        () -> count("SELECT COUNT(*) FROM " + table()) == 1,
        30,
        () -> "finished and DEAD rows purged; statuses " + admin().countByStatus());
    assertEquals(6, transport.attempts().size());
    assertEquals("PENDING", row("waiting").status, "live rows are never purged");
  }

  // --------------------------------------------------------------------------------- inbox

  @Test
  final void the_inbox_marks_each_consumer_and_event_once_even_under_concurrency()
      throws Exception {
    Inbox inbox = inbox();
    UUID id = UUID.randomUUID();
    try (Connection c = transaction()) {
      assertTrue(inbox.markProcessed(c, "billing", id), "first record");
      assertFalse(inbox.markProcessed(c, "billing", id), "duplicate in the same transaction");
      c.commit();
    }
    try (Connection c = transaction()) {
      assertFalse(inbox.markProcessed(c, "billing", id), "duplicate after commit");
      assertTrue(inbox.markProcessed(c, "shipping", id), "another consumer");
      c.rollback();
    }
    try (Connection c = transaction()) {
      assertTrue(inbox.markProcessed(c, "shipping", id), "the rolled back mark is gone");
      c.commit();
    }

    concurrentMarksOfOnePairAreNewOnce(inbox);

    assertEquals(3, count("SELECT COUNT(*) FROM " + inboxTable()));
    assertEquals(0, inbox.purgeOlderThan(dataSource(), Duration.ofHours(1)));
    assertEquals(3, inbox.purgeOlderThan(dataSource(), Duration.ZERO));
    assertEquals(0, count("SELECT COUNT(*) FROM " + inboxTable()));
  }

  @Test
  final void the_inbox_judges_each_aggregates_versions_in_order_even_under_concurrency()
      throws Exception {
    Inbox inbox = inbox();
    UUID first = UUID.randomUUID();
    UUID third = UUID.randomUUID();
    assertEquals(Inbox.Verdict.NEW, accept(inbox, first, 1, Inbox.OnGap.HOLD), "version 1");
    assertEquals(Inbox.Verdict.DUPLICATE, accept(inbox, first, 1, Inbox.OnGap.HOLD), "again");
    assertEquals(Inbox.Verdict.GAP, accept(inbox, third, 3, Inbox.OnGap.HOLD), "3 before 2");
    assertEquals(1, count("SELECT COUNT(*) FROM " + inboxTable()), "a held event leaves nothing");
    assertEquals(1, count("SELECT version FROM " + versionTable()), "nor its version");
    assertEquals(Inbox.Verdict.NEW, accept(inbox, UUID.randomUUID(), 2, Inbox.OnGap.HOLD));
    assertEquals(Inbox.Verdict.NEW, accept(inbox, third, 3, Inbox.OnGap.HOLD), "3 after 2");
    assertEquals(Inbox.Verdict.STALE, accept(inbox, UUID.randomUUID(), 2, Inbox.OnGap.HOLD));
    assertThrows(
        InboxGapException.class,
        () -> accept(inbox, UUID.randomUUID(), 6, Inbox.OnGap.FAIL),
        "a gap with OnGap.FAIL");
    assertEquals(3, count("SELECT version FROM " + versionTable()), "a failed gap leaves nothing");
    assertEquals(Inbox.Verdict.GAP, accept(inbox, UUID.randomUUID(), 6, Inbox.OnGap.APPLY));
    assertEquals(6, count("SELECT version FROM " + versionTable()), "an applied gap is kept");
    assertEquals(Inbox.Verdict.STALE, accept(inbox, UUID.randomUUID(), 5, Inbox.OnGap.HOLD));
    try (Connection c = transaction()) {
      assertEquals(
          Inbox.Verdict.NEW,
          inbox.accept(c, "billing", UUID.randomUUID(), "Order", "o-1", 7, Inbox.OnGap.HOLD));
      c.rollback();
    }
    assertEquals(6, count("SELECT version FROM " + versionTable()), "rolled back with the caller");

    aDeliveryWaitsForTheAggregatesUncommittedOne(inbox);
    concurrentDeliveriesOfOneAggregateMoveOnlyForward(inbox);
  }

  /**
   * Version 7 is accepted and not yet committed when version 8 arrives in another transaction: that
   * one must wait for the first to end and then judge by its version, 7 (NEW), not by the 6 last
   * committed (a GAP).
   */
  private void aDeliveryWaitsForTheAggregatesUncommittedOne(Inbox inbox) throws Exception {
    CountDownLatch accepted = new CountDownLatch(1);
    CountDownLatch commitFirst = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<Inbox.Verdict> first =
          pool.submit(
              () -> {
                try (Connection c = transaction()) {
                  Inbox.Verdict v =
                      inbox.accept(
                          c, "billing", UUID.randomUUID(), "Order", "o-1", 7, Inbox.OnGap.HOLD);
                  accepted.countDown();
                  commitFirst.await(scaled(30).toMillis(), TimeUnit.MILLISECONDS);
                  c.commit();
                  return v;
                }
              });
      assertTrue(accepted.await(scaled(10).toMillis(), TimeUnit.MILLISECONDS));
      Future<Inbox.Verdict> second =
          pool.submit(() -> accept(inbox, UUID.randomUUID(), 8, Inbox.OnGap.HOLD));
      try {
        second.get(scaled(1).toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException waitingForTheFirst) {
        // As expected: blocked on the aggregate's row.
      }
      commitFirst.countDown();
      assertEquals(Inbox.Verdict.NEW, first.get(scaled(30).toMillis(), TimeUnit.MILLISECONDS));
      assertEquals(
          Inbox.Verdict.NEW,
          second.get(scaled(30).toMillis(), TimeUnit.MILLISECONDS),
          "a delivery judged by a stale version: the aggregate's version row must stay locked"
              + " until the transaction that read it ends");
    } finally {
      commitFirst.countDown();
      pool.shutdownNow();
    }
  }

  private Inbox.Verdict accept(Inbox inbox, UUID id, long version, Inbox.OnGap onGap)
      throws SQLException {
    try (Connection c = transaction()) {
      Inbox.Verdict verdict = inbox.accept(c, "billing", id, "Order", "o-1", version, onGap);
      c.commit();
      return verdict;
    }
  }

  /**
   * Threads deliver the versions of one new aggregate in a shuffled order, applying gaps. Each
   * applied version must be above every version committed before: the guard must judge by the
   * latest committed version, holding the aggregate's row until its transaction ends. A check and
   * the commit it judges happen under one monitor, so the check is exact.
   */
  private void concurrentDeliveriesOfOneAggregateMoveOnlyForward(Inbox inbox) throws Exception {
    int versions = 60;
    List<Long> shuffled = new ArrayList<>();
    for (long v = 1; v <= versions; v++) {
      shuffled.add(v);
    }
    java.util.Collections.shuffle(shuffled, new Random(11));
    java.util.Deque<Long> queue = new java.util.ArrayDeque<>(shuffled);
    Object commits = new Object();
    long[] highest = {0};
    List<String> violations = java.util.Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> threads = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        threads.add(
            pool.submit(
                () -> {
                  while (true) {
                    Long v;
                    synchronized (queue) {
                      v = queue.poll();
                    }
                    if (v == null) {
                      return null;
                    }
                    try (Connection c = transaction()) {
                      Inbox.Verdict verdict =
                          inbox.accept(
                              c,
                              "billing",
                              UUID.randomUUID(),
                              "Order",
                              "hot",
                              v,
                              Inbox.OnGap.APPLY);
                      synchronized (commits) {
                        boolean applied =
                            verdict == Inbox.Verdict.NEW || verdict == Inbox.Verdict.GAP;
                        if (applied && v <= highest[0]) {
                          violations.add(
                              "version " + v + " applied after " + highest[0] + " committed");
                        }
                        c.commit();
                        if (applied) {
                          highest[0] = Math.max(highest[0], v);
                        }
                      }
                    }
                  }
                }));
      }
      for (Future<?> t : threads) {
        t.get(scaled(60).toMillis(), TimeUnit.MILLISECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(List.of(), violations, "concurrent deliveries judged by a stale version");
    assertEquals(
        versions,
        count("SELECT version FROM " + versionTable() + " WHERE aggregate_id = 'hot'"),
        "the last applied version ends at the highest");
  }

  /** Two transactions mark the same pair at once: exactly the first is new. */
  private void concurrentMarksOfOnePairAreNewOnce(Inbox inbox) throws Exception {
    UUID contested = UUID.randomUUID();
    CountDownLatch firstMarked = new CountDownLatch(1);
    CountDownLatch commitFirst = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<Boolean> first =
          pool.submit(
              () -> {
                try (Connection c = transaction()) {
                  boolean isNew = inbox.markProcessed(c, "billing", contested);
                  firstMarked.countDown();
                  commitFirst.await(scaled(30).toMillis(), TimeUnit.MILLISECONDS);
                  c.commit();
                  return isNew;
                }
              });
      assertTrue(firstMarked.await(scaled(10).toMillis(), TimeUnit.MILLISECONDS));
      Future<Boolean> second =
          pool.submit(
              () -> {
                try (Connection c = transaction()) {
                  boolean isNew = inbox.markProcessed(c, "billing", contested);
                  c.commit();
                  return isNew;
                }
              });
      try {
        // A database that keeps the pair unique makes the second mark wait for the first
        // transaction; one that lets it through must still not call both new.
        second.get(scaled(1).toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException waitingForTheFirst) {
        // As expected: blocked on the first transaction's row.
      }
      commitFirst.countDown();
      boolean firstNew = first.get(scaled(30).toMillis(), TimeUnit.MILLISECONDS);
      boolean secondNew = second.get(scaled(30).toMillis(), TimeUnit.MILLISECONDS);
      assertTrue(firstNew, "the first mark of a pair is new");
      assertFalse(secondNew, "a concurrent second mark of the same pair is a duplicate");
    } finally {
      commitFirst.countDown();
      pool.shutdownNow();
    }
  }

  // ------------------------------------------------------------------------ bounded time

  @Test
  final void a_relay_transaction_blocked_by_a_row_lock_ends_after_the_statement_timeout()
      throws Exception {
    assumeTrue(
        boundsStatementTime(),
        "boundsStatementTime() is false: the dialect cannot bound a transaction's time");
    append(1, i -> event("locked", i));
    Duration timeout = scaled(1);
    AtomicReference<Connection> locker = new AtomicReference<>();
    Transport lockingAfterSend =
        m -> {
          try {
            // Another session locks the row while it is in flight: the acknowledgement must wait.
            Connection c = transaction();
            locker.set(c);
            try (PreparedStatement ps =
                c.prepareStatement(
                    "UPDATE " + table() + " SET attempts = attempts WHERE aggregate_id = ?")) {
              ps.setString(1, "locked");
              ps.executeUpdate();
            }
          } catch (SQLException e) {
            throw new IllegalStateException(e);
          }
          return SendResult.delivered();
        };
    OutboxRelay relay = relay(lockingAfterSend, "bounded", b -> b.statementTimeout(timeout));

    long start = System.nanoTime();
    try {
      assertThrows(OutboxStorageException.class, relay::runOnce);
    } finally {
      Connection c = locker.get();
      if (c != null) {
        c.rollback();
        c.close();
      }
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    // The relay retries a transaction that failed on a lock a few times, each try bounded;
    // unbounded, it would wait for as long as the lock is held.
    Duration bound = timeout.multipliedBy(20);
    assertTrue(took.compareTo(bound) < 0, "gave up after " + took + ", not within " + bound);
    assertEquals("IN_FLIGHT", row("locked").status, "not confirmed: its lease brings it back");
  }

  // --------------------------------------------------------------------------------- admin

  @Test
  final void the_admin_counts_and_snapshot_reflect_every_state_and_drain_until_done_finishes()
      throws Exception {
    append(3, i -> event("published-" + i, i));
    appendOneDeadAndOneWaiting();
    RecordingTransport transport = rejectingTheDeadAggregate("no");
    relay(transport, "admin").drain();
    countsWhileOneIsInFlight(admin());

    List<OutboxEvent> flaky = append(5, i -> event("flaky-" + i, i));
    Set<UUID> failedOnce = ConcurrentHashMap.newKeySet();
    RecordingTransport retrying =
        new RecordingTransport()
            .respondWith(
                // Two of five, so the relay sees the events' own failures, not an outage.
                m ->
                    number(m.event()) % 2 == 1 && failedOnce.add(m.event().id())
                        ? SendResult.retry("once", null)
                        : SendResult.delivered());
    DrainReport report = relay(retrying, "drainer").drainUntilDone(scaled(30));

    assertEquals(5, report.delivered(), report.toString());
    assertEquals(2, report.retried(), report.toString());
    assertEquals(1, report.stillPending(), "the event due in an hour: " + report);
    assertFalse(report.timedOut(), report.toString());
    assertEquals(new HashSet<>(flaky), new HashSet<>(retrying.deliveredEvents()));
    assertEquals(9L, admin().count(EventStatus.PUBLISHED));
  }

  /** The admin's counts and snapshot while one event is held IN_FLIGHT by a relay's send. */
  private void countsWhileOneIsInFlight(OutboxAdmin admin) throws Exception {
    append(1, i -> event("in-flight", i));
    CountDownLatch sending = new CountDownLatch(1);
    CountDownLatch answer = new CountDownLatch(1);
    Transport holding =
        m -> {
          sending.countDown();
          try {
            answer.await(scaled(30).toMillis(), TimeUnit.MILLISECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return SendResult.delivered();
        };
    OutboxRelay holder = relay(holding, "holder");
    Thread holderRun = new Thread(holder::runOnce, "dialect-contract-holder");
    holderRun.start();
    try {
      assertTrue(sending.await(scaled(10).toMillis(), TimeUnit.MILLISECONDS));

      Map<EventStatus, Long> counts = admin.countByStatus();
      assertEquals(3L, counts.get(EventStatus.PUBLISHED), counts.toString());
      assertEquals(1L, counts.get(EventStatus.DEAD), counts.toString());
      assertEquals(1L, counts.get(EventStatus.PENDING), counts.toString());
      assertEquals(1L, counts.get(EventStatus.IN_FLIGHT), counts.toString());
      assertEquals(0L, counts.get(EventStatus.EXPIRED), counts.toString());
      assertEquals(1L, admin.count(EventStatus.DEAD));
      OutboxSnapshot snapshot = admin.snapshot();
      assertEquals(1, snapshot.pending(), snapshot.toString());
      assertEquals(1, snapshot.inFlight(), snapshot.toString());
      assertEquals(1, snapshot.dead(), snapshot.toString());
      // The age since the event occurred, by the database clock: written and read back in UTC,
      // whatever the session's time zone, it is minutes at most (allowing for clock skew).
      Duration age = snapshot.oldestPendingAge().orElseThrow();
      assertFalse(age.isNegative(), snapshot.toString());
      assertTrue(age.compareTo(Duration.ofMinutes(10)) < 0, "a fresh event's age: " + snapshot);
    } finally {
      answer.countDown();
      holderRun.join(scaled(30).toMillis());
    }
    assertEquals("PUBLISHED", row("in-flight").status);
  }

  // ------------------------------------------------------------------------------- helpers

  private void createSchema() throws SQLException {
    try (Connection c = dataSource().getConnection()) {
      OutboxSchema.create(c, table(), dialect());
      OutboxSchema.createInbox(c, inboxTable(), dialect());
      if (!c.getAutoCommit()) {
        c.commit();
      }
    }
  }

  private OutboxWriter writer() {
    return Outbox.writer().table(table()).dialect(dialect()).build();
  }

  private OutboxAdmin admin() {
    return OutboxAdmin.builder(dataSource()).table(table()).dialect(dialect()).build();
  }

  private Inbox inbox() {
    return Inbox.builder().table(inboxTable()).dialect(dialect()).build();
  }

  /** A relay for a test, closed after it; quick to poll and to retry. */
  private OutboxRelay relay(Transport transport, String name) {
    return relay(transport, name, b -> b);
  }

  private OutboxRelay relay(
      Transport transport, String name, UnaryOperator<OutboxRelay.Builder> options) {
    return relayOn(dataSource(), transport, name, options);
  }

  private OutboxRelay relayOn(
      DataSource ds, Transport transport, String name, UnaryOperator<OutboxRelay.Builder> options) {
    OutboxRelay.Builder builder =
        OutboxRelay.builder(ds, transport)
            .name(name)
            .table(table())
            .dialect(dialect())
            .pollInterval(Duration.ofMillis(20))
            .retryBackoff(Duration.ofMillis(1), Duration.ofMillis(20))
            .shutdownTimeout(scaled(5));
    OutboxRelay relay = options.apply(builder).build();
    relays.add(relay);
    return relay;
  }

  /**
   * A relay on a stallable data source whose transport stalls the data source as it delivers: the
   * relay cannot record the outcome until released, and its short lease runs out meanwhile.
   */
  private OutboxRelay stallingRelay(StallableDataSource stalling) {
    Transport stallAfterSend =
        m -> {
          stalling.stall();
          return SendResult.delivered();
        };
    Duration lease = scaled(3);
    return relayOn(
        stalling,
        stallAfterSend,
        "stale",
        b ->
            b.ordered(false)
                .leaseDuration(lease)
                .sendTimeout(scaled(1))
                .statementTimeout(scaled(1)));
  }

  private static Thread runInBackground(OutboxRelay relay, StallableDataSource stalling) {
    Thread t =
        new Thread(
            () -> {
              try {
                relay.runOnce();
              } catch (RuntimeException e) {
                // Its acknowledgement may fail once released: the outcome is what is checked.
              }
            },
            "dialect-contract-stale-relay");
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** Delivers every event but those of the aggregate "dead", which it rejects with the reason. */
  private static RecordingTransport rejectingTheDeadAggregate(String reason) {
    return new RecordingTransport()
        .respondWith(
            m ->
                m.event().aggregateId().equals("dead")
                    ? SendResult.reject(reason)
                    : SendResult.delivered());
  }

  private static OutboxEvent event(String aggregateId, int n) {
    return OutboxEvent.builder("Contract", aggregateId, "Checked")
        .payload("{\"n\":" + n + "}")
        .header("n", Integer.toString(n))
        .build();
  }

  private static int number(OutboxEvent e) {
    return Integer.parseInt(e.headers().get("n"));
  }

  private static List<Integer> numbers(List<OutboxEvent> events) {
    List<Integer> numbers = new ArrayList<>();
    for (OutboxEvent e : events) {
      numbers.add(number(e));
    }
    return numbers;
  }

  private static List<UUID> ids(List<DeadEvent> dead) {
    List<UUID> ids = new ArrayList<>();
    for (DeadEvent d : dead) {
      ids.add(d.id());
    }
    return ids;
  }

  /** Appends and commits, in transactions of up to 500 events. */
  private List<OutboxEvent> append(int count, IntFunction<OutboxEvent> factory)
      throws SQLException {
    OutboxWriter writer = writer();
    List<OutboxEvent> all = new ArrayList<>(count);
    try (Connection c = transaction()) {
      List<OutboxEvent> chunk = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        OutboxEvent e = factory.apply(i);
        all.add(e);
        chunk.add(e);
        if (chunk.size() == 500 || i == count - 1) {
          writer.appendAll(c, chunk);
          c.commit();
          chunk.clear();
        }
      }
    }
    return all;
  }

  /**
   * One event of the aggregate "dead" (see {@link #rejectingTheDeadAggregate}) and one not due for
   * an hour: the rows retention must keep.
   */
  private void appendOneDeadAndOneWaiting() throws SQLException {
    append(1, i -> event("dead", i));
    appendDelayed("waiting", Duration.ofHours(1));
  }

  private void appendDelayed(String aggregateId, Duration delay) throws SQLException {
    OutboxEvent e =
        OutboxEvent.builder("Contract", aggregateId, "Checked").payload("{}").delay(delay).build();
    try (Connection c = transaction()) {
      writer().append(c, e);
      c.commit();
    }
  }

  private Connection transaction() throws SQLException {
    Connection c = dataSource().getConnection();
    c.setAutoCommit(false);
    return c;
  }

  private void execute(String sql) throws SQLException {
    try (Connection c = dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
      if (!c.getAutoCommit()) {
        c.commit();
      }
    }
  }

  private long count(String query) throws SQLException {
    try (Connection c = dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      assertTrue(rs.next(), query);
      return rs.getLong(1);
    }
  }

  /**
   * {@link #countRows} from another session while a transaction may hold the rows: on a database
   * whose readers wait for writers (Derby, SQL Server without snapshot reads) the read waits, and a
   * lock wait that runs out (the dialect's {@link ErrorCodes.Kind#LOCK_TIMEOUT}) means the rows
   * were not visible to it.
   */
  private long countRowsSeenByOthers(String aggregateId) throws SQLException {
    try {
      return countRows(aggregateId);
    } catch (SQLException e) {
      if (dialect().errors().is(ErrorCodes.Kind.LOCK_TIMEOUT, e)) {
        return 0;
      }
      throw e;
    }
  }

  private long countRows(String aggregateId) throws SQLException {
    try (Connection c = dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT COUNT(*) FROM " + table() + " WHERE aggregate_id = ?")) {
      ps.setString(1, aggregateId);
      try (ResultSet rs = ps.executeQuery()) {
        assertTrue(rs.next());
        return rs.getLong(1);
      }
    }
  }

  /**
   * Whether the row of this aggregate meets {@code <column> <op> now + offset}, with now and the
   * offset in the dialect's own clock expression, so by the database clock.
   */
  private boolean byDatabaseClock(String aggregateId, String columnAndOperator, Duration offset)
      throws SQLException {
    String template = dialect().nowPlusMicros();
    String sql =
        "SELECT COUNT(*) FROM "
            + table()
            + " WHERE aggregate_id = ? AND "
            + columnAndOperator
            + " "
            + template.replace("{micros}", "?");
    int micros = template.split("\\{micros}", -1).length - 1;
    try (Connection c = dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, aggregateId);
      for (int i = 0; i < micros; i++) {
        ps.setLong(2 + i, offset.toNanos() / 1000);
      }
      try (ResultSet rs = ps.executeQuery()) {
        assertTrue(rs.next(), sql);
        return rs.getLong(1) == 1;
      }
    }
  }

  private void assertColumns(String table, List<String> columns) throws SQLException {
    String query = "SELECT " + String.join(", ", columns) + " FROM " + table + " WHERE 1 = 0";
    try (Connection c = dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      assertEquals(columns.size(), rs.getMetaData().getColumnCount(), query);
    } catch (SQLException e) {
      fail("table " + table + " lacks a documented column (" + columns + "): " + e, e);
    }
  }

  /** One row's state, read with a plain SELECT. */
  private static final class Row {
    String status;
    int attempts;
    int leaseLosses;
    String lastError;
    Object publishedAt;
  }

  /** The state of the only row of this aggregate. */
  private Row row(String aggregateId) throws SQLException {
    try (Connection c = dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT status, attempts, lease_losses, last_error, published_at"
                    + " FROM "
                    + table()
                    + " WHERE aggregate_id = ?")) {
      ps.setString(1, aggregateId);
      try (ResultSet rs = ps.executeQuery()) {
        assertTrue(rs.next(), "a row of aggregate " + aggregateId);
        Row row = new Row();
        row.status = rs.getString(1);
        row.attempts = rs.getInt(2);
        row.leaseLosses = rs.getInt(3);
        row.lastError = rs.getString(4);
        row.publishedAt = rs.getObject(5);
        assertFalse(rs.next(), "one row of aggregate " + aggregateId);
        return row;
      }
    }
  }

  private void awaitStatus(String aggregateId, String status) {
    await(
        () -> status.equals(uncheckedRow(aggregateId).status),
        30,
        () -> aggregateId + " " + status + ", is " + uncheckedRow(aggregateId).status);
  }

  private Row uncheckedRow(String aggregateId) {
    try {
      return row(aggregateId);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private void awaitPublished(long expected, Duration timeout) {
    await(
        () -> admin().count(EventStatus.PUBLISHED) >= expected,
        timeout.getSeconds(),
        () -> expected + " events published; statuses " + admin().countByStatus());
  }

  private interface Check {
    boolean holds() throws Exception;
  }

  /** Polls until the check holds, failing after {@code seconds} (scaled) with what was awaited. */
  private void await(Check check, long seconds, Supplier<String> what) {
    long deadline = System.nanoTime() + scaled(seconds).toNanos();
    while (true) {
      try {
        if (check.holds()) {
          return;
        }
      } catch (Exception e) {
        throw new AssertionError("while waiting for: " + what.get(), e);
      }
      if (System.nanoTime() - deadline > 0) {
        fail("timed out waiting for: " + what.get());
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for: " + what.get(), e);
      }
    }
  }

  private Duration scaled(long seconds) {
    return Duration.ofMillis((long) (seconds * 1000 * Math.max(1.0, timeScale())));
  }
}
