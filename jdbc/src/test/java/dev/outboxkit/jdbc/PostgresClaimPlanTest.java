package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.internal.Dialects;
import dev.outboxkit.testkit.Flavor;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * With 200,000 PUBLISHED rows in the table, claiming still walks the partial indexes of live rows
 * only, so its cost does not grow with history.
 */
class PostgresClaimPlanTest extends DatabaseTest {

  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }

  private String plan(String template) throws SQLException {
    String sql = "EXPLAIN " + template.replace("{table}", "outbox_event");
    StringBuilder plan = new StringBuilder();
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      // As the relay does: the claim's planner settings, local to its transaction.
      try (Statement s = c.createStatement()) {
        s.execute(Dialects.sql(Dialect.POSTGRESQL).beforeClaim());
      }
      explain(c, sql, plan);
      c.rollback();
    }
    return plan.toString();
  }

  private static void explain(Connection c, String sql, StringBuilder plan) throws SQLException {
    {
      PreparedStatement ps = c.prepareStatement(sql);
      ps.setString(1, "plan@test/1");
      ps.setLong(2, 60_000);
      ps.setInt(3, 500);
      try (ps;
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
    }
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

    String ordered = plan(Dialects.sql(Dialect.POSTGRESQL).claimOrdered());

    assertThat(ordered)
        .contains("Index Scan using outbox_event_pending_idx")
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

    String unordered = plan(Dialects.sql(Dialect.POSTGRESQL).claimUnordered());
    String ordered = plan(Dialects.sql(Dialect.POSTGRESQL).claimOrdered());

    assertThat(unordered)
        .contains("outbox_event_pending_idx")
        .doesNotContain("Seq Scan on outbox_event");
    assertThat(ordered)
        .contains("outbox_event_pending_idx")
        .contains("outbox_event_aggregate_idx")
        .doesNotContain("Seq Scan on outbox_event");
    assertThat(OutboxAdmin.create(ds).count(EventStatus.PENDING)).isEqualTo(10);
  }
}
