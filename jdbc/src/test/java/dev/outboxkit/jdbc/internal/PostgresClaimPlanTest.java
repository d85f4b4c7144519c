package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.DatabaseTest;
import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.testkit.Flavor;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * With 200,000 PUBLISHED rows in the table, claiming still walks the partial indexes of live rows
 * only, so its cost does not grow with history.
 */
class PostgresClaimPlanTest extends DatabaseTest {

  private static final OutboxSql SQL =
      OutboxSql.of(Dialect.POSTGRESQL.preset(), TableName.of("outbox_event"));

  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }

  /** EXPLAIN of a claim, with the planner settings the relay uses for plain claims. */
  private String plan(Statement statement) throws SQLException {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try (java.sql.Statement s = c.createStatement()) {
        s.execute(SQL.text(Statements.BEFORE_CLAIM));
      }
      String plan = explain(c, "EXPLAIN " + SQL.text(statement), 500);
      c.rollback();
      return plan;
    }
  }

  private static String explain(Connection c, String sql, int limit) throws SQLException {
    StringBuilder plan = new StringBuilder();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, "plan@test/1");
      ps.setLong(2, 60_000);
      ps.setInt(3, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
    }
    return plan.toString();
  }

  @Test
  void the_ordered_claim_keeps_its_plan_on_a_backlog_that_was_never_analyzed() throws Exception {
    // Fresh (truncated) table, 10,000 PENDING events in 50 aggregates, no ANALYZE: the case where
    // PostgreSQL would otherwise hash-join and sort the whole backlog on every claim.
    execute(
        "INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type, payload,"
            + " content_type, occurred_at, available_at)"
            + " SELECT gen_random_uuid(), 'Order', 'a' || (g % 50), 'E', '\\x00'::bytea,"
            + " 'application/json', now(), now() FROM generate_series(1, 10000) g");

    String ordered = plan(Statements.CLAIM_ORDERED);

    assertThat(ordered)
        .contains("Index Scan using outbox_event_claim_idx")
        .contains("outbox_event_aggregate_idx")
        .doesNotContain("Hash Join")
        .doesNotContain("Hash Anti Join")
        .doesNotContain("Sort")
        .doesNotContain("Bitmap");
  }

  @Test
  void claims_stay_on_the_live_row_indexes_with_200k_published_rows() throws Exception {
    execute(
        "INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type, payload,"
            + " content_type, occurred_at, available_at, status, published_at)"
            + " SELECT gen_random_uuid(), 'Order', 'a' || (g % 1000), 'E', '\\x00'::bytea,"
            + " 'application/json', now(), now(), CASE WHEN g > 199990 THEN 'PENDING' ELSE"
            + " 'PUBLISHED' END, now() FROM generate_series(1, 200000) g");
    execute("ANALYZE outbox_event");

    String unordered = plan(Statements.CLAIM_UNORDERED);
    String ordered = plan(Statements.CLAIM_ORDERED);

    assertThat(unordered)
        .contains("outbox_event_claim_idx")
        .doesNotContain("Seq Scan on outbox_event");
    assertThat(ordered)
        .contains("outbox_event_claim_idx")
        .contains("outbox_event_aggregate_idx")
        .doesNotContain("Seq Scan on outbox_event");
    assertThat(OutboxAdmin.create(ds).count(EventStatus.PENDING)).isEqualTo(10);
  }

  @Test
  void the_sparse_ordered_claim_hops_over_aggregates_instead_of_reading_the_backlog()
      throws Exception {
    execute(
        "INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type, payload,"
            + " content_type, occurred_at, available_at)"
            + " SELECT gen_random_uuid(), 'Order', 'a' || (g % 50), 'E', '\\x00'::bytea,"
            + " 'application/json', now(), now() FROM generate_series(1, 10000) g");
    execute("ANALYZE outbox_event");
    String sql = "EXPLAIN ANALYZE " + SQL.text(Statements.CLAIM_ORDERED_SPARSE);
    String plan;
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      plan = explain(c, sql, 100); // ANALYZE runs it: roll the claim back
      c.rollback();
    }

    // One hop per aggregate: the recursion reads 50 index entries, not 10,000 pending rows.
    assertThat(plan)
        .contains("Index Scan using outbox_event_aggregate_idx on outbox_event x")
        .contains("loops=50")
        .doesNotContain("rows=10000 loops=1");
  }

  @Test
  void the_sparse_ordered_claim_takes_the_heads_of_highest_priority_first() throws Exception {
    // Heads of priority 0, 5 and -1; the second event of the last aggregate has priority 9 but is
    // not a head.
    execute(
        "INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type, payload,"
            + " content_type, occurred_at, available_at, priority)"
            + " SELECT gen_random_uuid(), 'Order', a, 'E', '\\x00'::bytea, 'application/json',"
            + " now(), now(), p FROM (VALUES (1, 'a', 0), (2, 'b', 5), (3, 'c', -1), (4, 'c', 9))"
            + " v(n, a, p) ORDER BY n");
    List<String> claimed = new ArrayList<>();
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      for (int round = 0; round < 3; round++) {
        try (PreparedStatement ps = c.prepareStatement(SQL.text(Statements.CLAIM_ORDERED_SPARSE))) {
          ps.setString(1, "sparse@test/1");
          ps.setLong(2, 60_000_000);
          ps.setInt(3, 1);
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              claimed.add(rs.getString("aggregate_id") + rs.getInt("priority"));
            }
          }
        }
      }
      c.rollback();
    }

    // Each claim takes the best head left; c's priority-9 event waits behind c's head.
    assertThat(claimed).containsExactly("b5", "a0", "c-1");
  }
}
