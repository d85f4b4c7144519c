package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.Transport;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import dev.outboxkit.testkit.Await;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.function.IntFunction;

/** What the relay suites share: relays set up for tests, appending, and reading rows back. */
abstract class RelayDatabaseTest extends DatabaseTest {

  protected OutboxAdmin admin() {
    return OutboxAdmin.create(ds);
  }

  /**
   * The dialect the suite's relays are given, or null to let them detect it: a subclass runs the
   * whole suite with another claim capability on the same database.
   */
  protected SqlDialect relayDialect() {
    return null;
  }

  protected OutboxRelay.Builder relay(Transport transport, String name) {
    OutboxRelay.Builder b = OutboxRelay.builder(ds, transport);
    if (relayDialect() != null) {
      b.dialect(relayDialect());
    }
    return b.name(name)
        .batchSize(100)
        .pollInterval(Duration.ofMillis(20))
        .retryBackoff(Duration.ofMillis(1), Duration.ofMillis(20))
        .shutdownTimeout(Duration.ofSeconds(5))
        .random(new Random(42));
  }

  protected static OutboxEvent event(String aggregateId, int n) {
    return OutboxEvent.builder("Order", aggregateId, "OrderPlaced")
        .payload("{\"n\":" + n + "}")
        .header("n", Integer.toString(n))
        .build();
  }

  protected List<OutboxEvent> append(int count, IntFunction<OutboxEvent> factory)
      throws SQLException {
    List<OutboxEvent> all = new ArrayList<>(count);
    try (Connection c = transaction()) {
      List<OutboxEvent> chunk = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        OutboxEvent e = factory.apply(i);
        all.add(e);
        chunk.add(e);
        if (chunk.size() == 500) {
          Outbox.appendAll(c, chunk);
          c.commit();
          chunk.clear();
        }
      }
      Outbox.appendAll(c, chunk);
      c.commit();
    }
    return all;
  }

  protected long countStatus(EventStatus status) {
    return admin().count(status);
  }

  protected void awaitPublished(long expected, Duration timeout) {
    Await.until(
        () -> countStatus(EventStatus.PUBLISHED) >= expected,
        timeout,
        () -> "all " + expected + " events published; statuses " + admin().countByStatus());
  }

  /** Shifts every lease into the past: the database clock cannot be moved, the rows can. */
  protected void expireLeases() throws SQLException {
    String past =
        dialect == Dialect.POSTGRESQL
            ? "now() - INTERVAL '1 hour'"
            : dialect == Dialect.H2
                ? "DATEADD(HOUR, -1, CURRENT_TIMESTAMP)"
                : "UTC_TIMESTAMP(6) - INTERVAL 1 HOUR";
    execute("UPDATE outbox_event SET lease_until = " + past + " WHERE status = 'IN_FLIGHT'");
  }

  /** Makes every waiting retry available now. */
  protected void makeRetriesDue() throws SQLException {
    String now =
        dialect == Dialect.POSTGRESQL
            ? "now()"
            : dialect == Dialect.H2 ? "CURRENT_TIMESTAMP" : "UTC_TIMESTAMP(6)";
    execute("UPDATE outbox_event SET available_at = " + now + " WHERE status = 'PENDING'");
  }

  protected Map<String, Object> row(UUID id) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT status, attempts, lease_losses, uncertain_sends, last_error, lease_owner"
                    + " FROM outbox_event"
                    + " WHERE id = ?")) {
      sql().setUuid(ps, 1, id);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("row %s exists", id).isTrue();
        Map<String, Object> row = new HashMap<>();
        row.put("status", rs.getString("status"));
        row.put("attempts", rs.getInt("attempts"));
        row.put("lease_losses", rs.getInt("lease_losses"));
        row.put("uncertain_sends", rs.getInt("uncertain_sends"));
        row.put("last_error", rs.getString("last_error"));
        row.put("lease_owner", rs.getString("lease_owner"));
        return row;
      }
    }
  }
}
