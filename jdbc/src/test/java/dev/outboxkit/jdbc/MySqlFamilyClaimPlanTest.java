package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.internal.Dialects;
import dev.outboxkit.jdbc.internal.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * With 200,000 PUBLISHED rows in the table, MySQL's and MariaDB's claim reads use the (status, ...)
 * indexes and examine only live rows, so their cost does not grow with history.
 */
abstract class MySqlFamilyClaimPlanTest extends DatabaseTest {

  /** A query yielding column {@code n} = 1..200,000. */
  protected abstract String numbers();

  /** EXPLAIN rows as "table:key:rows". */
  private List<String> plan(String template, int params) throws SQLException {
    String sql =
        "EXPLAIN " + template.replace("{table}", "outbox_event").replace("{seqs}", "1, 2, 3");
    List<String> rows = new ArrayList<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 1; i <= params; i++) {
        ps.setInt(i, 500);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(rs.getString("table") + ":" + rs.getString("key") + ":" + rs.getLong("rows"));
        }
      }
    }
    return rows;
  }

  @Test
  void claims_stay_on_the_status_indexes_with_200k_published_rows() throws Exception {
    execute(
        "INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type, payload,"
            + " content_type, occurred_at, available_at, status, published_at)"
            + " SELECT UUID(), 'Order', CONCAT('a', n % 1000), 'E', x'00', 'application/json',"
            + " UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), IF(n > 199990, 'PENDING', 'PUBLISHED'),"
            + " UTC_TIMESTAMP(6) FROM ("
            + numbers()
            + ") numbers");
    execute("ANALYZE TABLE outbox_event");
    SqlDialect sql = Dialects.sql(dialect);

    List<String> unordered = plan(sql.lockUnordered(), 1);
    List<String> candidates = plan(sql.orderedCandidates(), 1);

    assertThat(unordered)
        .singleElement()
        .satisfies(r -> assertRowCount(r, "outbox_event_status_idx"));
    assertThat(candidates).hasSize(2);
    assertRowCount(candidates.get(0), "outbox_event_status_idx");
    // The "earlier unfinished event?" probe may use either live-row index; both lead with
    // columns that keep PUBLISHED rows out of the scan.
    assertRowCount(candidates.get(1), "outbox_event_status_idx", "outbox_event_aggregate_idx");
  }

  @Test
  void the_ordered_probe_uses_the_aggregate_index_when_few_aggregates_hold_many_events()
      throws Exception {
    execute(
        "INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type, payload,"
            + " content_type, occurred_at, available_at)"
            + " SELECT UUID(), 'Order', CONCAT('a', n % 50), 'E', x'00', 'application/json',"
            + " UTC_TIMESTAMP(6), UTC_TIMESTAMP(6) FROM ("
            + numbers()
            + ") numbers WHERE n <= 10000");
    execute("ANALYZE TABLE outbox_event");

    List<String> candidates = plan(Dialects.sql(dialect).orderedCandidates(), 1);

    // A (status, seq) probe would scan every earlier pending event of the table per candidate.
    assertThat(candidates.get(1)).as(candidates.toString()).contains("outbox_event_aggregate_idx");
  }

  private static void assertRowCount(String explainRow, String... indexes) {
    String[] parts = explainRow.split(":");
    assertThat(parts[1]).as(explainRow).isIn((Object[]) indexes);
    assertThat(Long.parseLong(parts[2])).as("rows examined in %s", explainRow).isLessThan(1000);
  }
}
