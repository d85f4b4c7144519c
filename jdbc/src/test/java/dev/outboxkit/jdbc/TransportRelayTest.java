package dev.outboxkit.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.FreshDatabase;
import dev.outboxkit.testkit.Sql;
import dev.outboxkit.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Base of the transports' relay contract tests (Kafka, JMS, webhooks), shared through this module's
 * test jar: one fresh database per test class on a real server of the subclass's flavour, with the
 * outbox table and the business table the test writes beside it, both emptied before each test;
 * relays, pools and transports closed after each test; and the statuses counted and awaited.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
// Compiled inside this module (its tests are patched into it), it shows the test kit's and JUnit's
// types, which the module does not export; it is only ever used from the class path.
@SuppressWarnings("exports")
public abstract class TransportRelayTest {
  @RegisterExtension protected final FreshDatabase database;

  /** The class's database, there from the first test on. */
  protected TestDatabase db;

  /** The class's database's data source, there from the first test on. */
  protected DataSource ds;

  private final String businessTable;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  /** A suite whose tests write nothing but events. */
  protected TransportRelayTest() {
    this(null, null);
  }

  /**
   * A suite whose business transactions also write to a table of their own.
   *
   * @param table its name
   * @param columns its columns and keys, as in {@code CREATE TABLE table (columns)}
   */
  protected TransportRelayTest(String table, String columns) {
    FreshDatabase fresh = FreshDatabase.of(this::flavor).setUp(this::createTables);
    if (table == null) {
      businessTable = null;
      database = fresh.beforeEachTest("DELETE FROM outbox_event");
    } else {
      businessTable = "CREATE TABLE " + table + " (" + columns + ")";
      database = fresh.beforeEachTest("DELETE FROM outbox_event", "DELETE FROM " + table);
    }
  }

  /** The database product this subclass runs on. */
  protected abstract Flavor flavor();

  private void createTables(TestDatabase fresh) throws SQLException {
    db = fresh;
    ds = fresh.dataSource();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      OutboxSchema.create(c);
      if (businessTable != null) {
        s.execute(businessTable);
      }
    }
  }

  /**
   * Closes this after the test, in reverse order of registration: register a relay after its pool
   * and its transport.
   *
   * @return the resource
   */
  protected <T extends AutoCloseable> T closeAfterTest(T resource) {
    toClose.add(resource);
    return resource;
  }

  /** A connection pool of its own, as a second process would have; closed after the test. */
  protected HikariDataSource newPool(int maxConnections) {
    return closeAfterTest(db.newDataSource(maxConnections));
  }

  /** Builds and starts the relay; closed after the test. */
  protected OutboxRelay start(OutboxRelay.Builder relay) {
    OutboxRelay started = closeAfterTest(relay.build());
    started.start();
    return started;
  }

  /** Closes the relays registered so far, now (closing one again after the test does nothing). */
  protected void closeRelays() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      if (toClose.get(i) instanceof OutboxRelay) {
        toClose.get(i).close();
      }
    }
  }

  @AfterEach
  void closeRegistered() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
    toClose.clear();
  }

  protected long count(EventStatus status) {
    return OutboxAdmin.create(ds).count(status);
  }

  /** The statuses that have events, with their counts. */
  protected Map<EventStatus, Long> statusCounts() {
    Map<EventStatus, Long> counts = new HashMap<>(OutboxAdmin.create(ds).countByStatus());
    counts.values().removeIf(n -> n == 0);
    return counts;
  }

  protected void awaitCount(EventStatus status, long expected, Duration timeout) {
    Await.until(
        () -> count(status) >= expected,
        timeout,
        () -> expected + " " + status + " events; statuses " + statusCounts());
  }

  /** {@return the events that meet an SQL condition, e.g. {@code status = 'PENDING'}} */
  protected long countWhere(String condition) throws SQLException {
    return Sql.queryLong(ds, "SELECT COUNT(*) FROM outbox_event WHERE " + condition);
  }

  /** The most failed sends charged to one event. */
  protected long maxAttempts() throws SQLException {
    return Sql.queryLong(ds, "SELECT MAX(attempts) FROM outbox_event");
  }

  /** {@code from}, {@code from + 1}, ... up to {@code to}, exclusive. */
  protected static List<Integer> sequence(int from, int to) {
    List<Integer> seqs = new ArrayList<>();
    for (int s = from; s < to; s++) {
      seqs.add(s);
    }
    return seqs;
  }
}
