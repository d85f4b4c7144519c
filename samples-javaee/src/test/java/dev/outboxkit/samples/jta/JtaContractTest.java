package dev.outboxkit.samples.jta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.jdbc.OutboxWriter;
import dev.outboxkit.testing.RecordingTransport;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.FreshDatabase;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.ThreadCensus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import javax.transaction.HeuristicMixedException;
import javax.transaction.HeuristicRollbackException;
import javax.transaction.RollbackException;
import javax.transaction.Status;
import javax.transaction.TransactionManager;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * OutboxKit under a real JTA transaction manager (Narayana, javax line) on a real database: {@code
 * Outbox.append} on an enlisted connection commits and rolls back with the JTA transaction, and the
 * relay and {@code OutboxAdmin}, which commit their own transactions, refuse to run inside one
 * before they touch a row. One subclass per pool (Agroal enlisting in Narayana, Narayana's own
 * {@code TransactionalDriver} over an XA data source) and database.
 *
 * <p>Every test prints one line, {@code JTA outcome: <pool>/<database> <case>: <what happened>}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JtaContractTest {
  @RegisterExtension
  final FreshDatabase database = FreshDatabase.of(this::flavor).setUp(this::prepare);

  protected final TransactionManager tm = Narayana.transactionManager();
  protected TestDatabase db;
  private DataSource jta;

  protected abstract Flavor flavor();

  /** "Agroal" or "TransactionalDriver". */
  protected abstract String pool();

  /** A data source whose connections enlist in the calling thread's JTA transaction. */
  protected abstract DataSource jtaDataSource(TestDatabase db) throws Exception;

  /** Whether an enlisted connection of {@link #jtaDataSource} reports auto-commit on. */
  protected abstract boolean reportsAutoCommitWhenEnlisted();

  /**
   * Whether the caller's JTA transaction may be doomed once it ran a statement and OutboxKit then
   * borrowed and closed a connection of the same data source in it. Seen on TransactionalDriver
   * with MariaDB (Connector/J XA): Narayana delists the XA resource when the library's connection
   * closes, and enlisting it again answers XAER_INVAL. There the test does not assert that the
   * caller's transaction survives the refusal; it reports what happened.
   */
  protected boolean libraryBorrowMayDoomTheCallersTransaction() {
    return false;
  }

  /** The writer the application uses on this pool's connections. */
  protected OutboxWriter writer() {
    return reportsAutoCommitWhenEnlisted()
        ? Outbox.writer().managedTransactions(true).build()
        : Outbox.writer().build();
  }

  /** Once per class, on its fresh database: the tables, then the pool under test on them. */
  private void prepare(TestDatabase fresh) throws Exception {
    try (Connection c = fresh.connect();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE orders (id VARCHAR(36) PRIMARY KEY, total INT NOT NULL)");
      OutboxSchema.create(c);
    }
    db = fresh;
    jta = jtaDataSource(fresh);
  }

  /** Before the extension drops the database: the pool's connections go first. */
  @AfterAll
  void closeJtaDataSource() throws Exception {
    if (jta instanceof AutoCloseable) {
      ((AutoCloseable) jta).close();
    }
  }

  @AfterEach
  void endLeftoverTransaction() throws Exception {
    if (tm.getStatus() != Status.STATUS_NO_TRANSACTION) {
      tm.rollback();
    }
  }

  @Test
  void enlisted_connection_reports_auto_commit_as_the_pool_does_and_the_writer_follows()
      throws Exception {
    tm.begin();
    try (Connection c = jta.getConnection()) {
      assertThat(c.getAutoCommit()).isEqualTo(reportsAutoCommitWhenEnlisted());
      if (reportsAutoCommitWhenEnlisted()) {
        assertThatThrownBy(() -> Outbox.append(c, event("o-refused")))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("JTA")
            .hasMessageContaining("managedTransactions(true)");
      } else {
        Outbox.append(c, event("o-accepted"));
      }
    }
    tm.rollback();
    assertThat(events("o-refused", "o-accepted")).isZero();
    outcome(
        "enlisted connection",
        reportsAutoCommitWhenEnlisted()
            ? "autoCommit=true; default writer refused it (message names JTA and"
                + " managedTransactions(true)); managedTransactions(true) writer used"
            : "autoCommit=false; default writer accepted it");
  }

  @Test
  void commit_keeps_the_order_and_its_event() throws Exception {
    tm.begin();
    placeOrder("o-commit");
    tm.commit();

    assertThat(orders("o-commit")).isEqualTo(1);
    assertThat(events("o-commit")).isEqualTo(1);
    assertThat(status("o-commit")).isEqualTo("PENDING");
    outcome("commit", "order+event kept");
  }

  @Test
  void rollback_removes_the_order_and_its_event() throws Exception {
    tm.begin();
    placeOrder("o-rollback");
    tm.rollback();

    assertThat(orders("o-rollback")).isZero();
    assertThat(events("o-rollback")).isZero();
    outcome("rollback", "order+event gone");
  }

  @Test
  void set_rollback_only_then_commit_throws_and_removes_the_order_and_its_event() throws Exception {
    tm.begin();
    placeOrder("o-doomed");
    tm.setRollbackOnly();
    assertThatThrownBy(tm::commit).isInstanceOf(RollbackException.class);

    assertThat(orders("o-doomed")).isZero();
    assertThat(events("o-doomed")).isZero();
    outcome("setRollbackOnly+commit", "RollbackException, order+event gone");
  }

  @Test
  void relay_and_admin_refuse_to_run_inside_a_jta_transaction_after_the_callers_writes()
      throws Exception {
    commitOrder("o-ready");
    RecordingTransport transport = new RecordingTransport();
    String callerTx;
    try (OutboxRelay relay = OutboxRelay.builder(jta, transport).name("jta-refusal").build()) {
      OutboxAdmin admin = OutboxAdmin.create(jta);

      tm.begin();
      placeOrder("o-inside"); // the caller's own statements run first, as in an EJB method
      assertRefused("OutboxRelay.runOnce()", () -> relay.runOnce());
      assertRefused("OutboxRelay.drain()", () -> relay.drain());
      assertRefused("OutboxAdmin", () -> admin.count(EventStatus.PENDING));
      assertRefused("OutboxAdmin.purgeFinished", () -> admin.purgeFinished(Duration.ZERO));
      if (libraryBorrowMayDoomTheCallersTransaction()) {
        // Not asserted here: on this driver, the library's borrowed and closed connection may
        // take the XA resource out of the caller's transaction, which cannot enlist it again, so
        // the commit may fail. The refusal still came before any row was claimed or changed,
        // which is what is checked below.
        try {
          tm.commit();
          callerTx =
              orders("o-inside") == 1 && events("o-inside") == 1
                  ? "caller's tx then committed its order+event (survived the probe here)"
                  : "caller's tx commit returned but its rows are missing";
        } catch (RollbackException | HeuristicMixedException | HeuristicRollbackException e) {
          callerTx = "caller's tx doomed by the probe's borrow+close (driver quirk): " + e;
        }
      } else {
        tm.commit();
        assertThat(orders("o-inside")).isEqualTo(1);
        assertThat(events("o-inside")).isEqualTo(1);
        callerTx = "caller's tx then committed its order+event";
      }
    }

    // Checked afterwards, on a plain connection: nothing was claimed, sent or purged.
    assertUntouched("o-ready");
    assertThat(transport.attempts()).isEmpty();
    outcome(
        "runOnce/drain/admin.count/purgeFinished inside tx after writes",
        "OutboxConfigurationException each, nothing claimed (PENDING, attempts 0); " + callerTx);
  }

  @Test
  void relay_refuses_to_run_as_the_first_thing_in_a_jta_transaction() throws Exception {
    commitOrder("o-first-ready");
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay = OutboxRelay.builder(jta, transport).name("jta-first").build()) {
      tm.begin();
      assertRefused("OutboxRelay.runOnce()", () -> relay.runOnce());
      assertRefused("OutboxAdmin", () -> OutboxAdmin.create(jta).snapshot());
      placeOrder("o-first-after");
      tm.commit();
    }

    assertUntouched("o-first-ready");
    assertThat(transport.attempts()).isEmpty();
    assertThat(orders("o-first-after")).isEqualTo(1);
    assertThat(events("o-first-after")).isEqualTo(1);
    outcome(
        "runOnce/admin.snapshot as first call in tx",
        "OutboxConfigurationException each, nothing claimed; the caller's tx then committed");
  }

  @Test
  void the_same_relay_on_a_plain_data_source_publishes_the_committed_events() throws Exception {
    List<String> ids = List.of("o-pub-1", "o-pub-2", "o-pub-3");
    for (String id : ids) {
      commitOrder(id);
    }
    RecordingTransport transport = new RecordingTransport();
    ThreadCensus.CountingFactory factory = new ThreadCensus.CountingFactory();
    ThreadCensus census = ThreadCensus.take("test-", "mysql-cj-");
    int published;
    List<Thread> started;
    // The non-JTA data source: the test kit's plain pool on the same database.
    try (OutboxRelay relay =
        OutboxRelay.builder(db.dataSource(), transport)
            .name("jta-plain")
            .threadFactory(factory)
            .build()) {
      published = relay.drain();
      started = census.startedSince();
      assertThat(started).isNotEmpty().allMatch(factory.created()::contains);
    }

    assertThat(published).isGreaterThanOrEqualTo(ids.size());
    assertThat(
            transport.deliveredEvents().stream()
                .map(OutboxEvent::aggregateId)
                .filter(ids::contains)
                .collect(Collectors.toList()))
        .containsExactlyInAnyOrderElementsOf(ids);
    for (String id : ids) {
      assertThat(status(id)).isEqualTo("PUBLISHED");
    }
    assertThat(factory.alive()).isEmpty();
    assertThat(census.startedSince()).isEmpty();
    outcome(
        "relay on the plain DataSource",
        "drain() published the " + ids.size() + " committed events");
    System.out.printf(
        "Thread census: JTA %s/%s relay.drain() with a thread factory: %d threads started, all"
            + " from the factory (%d made); after close: %d alive%n",
        pool(), database(), started.size(), factory.created().size(), factory.alive().size());
  }

  // --- helpers

  private static void assertRefused(String operation, ThrowingCallable call) {
    assertThatThrownBy(call)
        .as(operation)
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining(operation)
        .hasMessageContaining("not JTA-managed");
  }

  /** The business transaction's work, on a connection enlisted in the current JTA transaction. */
  private void placeOrder(String id) throws SQLException {
    try (Connection c = jta.getConnection()) {
      try (PreparedStatement ps =
          c.prepareStatement("INSERT INTO orders (id, total) VALUES (?, ?)")) {
        ps.setString(1, id);
        ps.setInt(2, 42);
        ps.executeUpdate();
      }
      writer().append(c, event(id));
    }
  }

  private void commitOrder(String id) throws Exception {
    tm.begin();
    placeOrder(id);
    tm.commit();
  }

  private static OutboxEvent event(String orderId) {
    return OutboxEvent.builder("Order", orderId, "OrderPlaced")
        .payload("{\"order\":\"" + orderId + "\"}")
        .build();
  }

  private void assertUntouched(String orderId) throws SQLException {
    try (Connection c = db.connect();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT status, attempts, lease_owner FROM outbox_event WHERE aggregate_id = ?")) {
      ps.setString(1, orderId);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("event of %s", orderId).isTrue();
        assertThat(rs.getString(1)).isEqualTo("PENDING");
        assertThat(rs.getInt(2)).isZero();
        assertThat(rs.getString(3)).isNull();
      }
    }
  }

  private long orders(String... ids) throws SQLException {
    return countIn("SELECT COUNT(*) FROM orders WHERE id IN (?, ?)", ids);
  }

  private long events(String... orderIds) throws SQLException {
    return countIn("SELECT COUNT(*) FROM outbox_event WHERE aggregate_id IN (?, ?)", orderIds);
  }

  private long countIn(String sql, String... ids) throws SQLException {
    try (Connection c = db.connect();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, ids[0]);
      ps.setString(2, ids.length > 1 ? ids[1] : ids[0]);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private String status(String orderId) throws SQLException {
    try (Connection c = db.connect();
        PreparedStatement ps =
            c.prepareStatement("SELECT status FROM outbox_event WHERE aggregate_id = ?")) {
      ps.setString(1, orderId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  private String database() {
    return flavor() == Flavor.POSTGRES ? "PostgreSQL" : "MariaDB";
  }

  private void outcome(String what, String result) {
    System.out.printf("JTA outcome: %s/%s %s: %s%n", pool(), database(), what, result);
  }
}
