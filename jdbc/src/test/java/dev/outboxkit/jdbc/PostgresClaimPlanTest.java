package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.internal.Dialects;
import dev.outboxkit.testkit.Flavor;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, "plan@test/1");
      ps.setLong(2, 60_000);
      ps.setInt(3, 500);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
    }
    return plan.toString();
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
