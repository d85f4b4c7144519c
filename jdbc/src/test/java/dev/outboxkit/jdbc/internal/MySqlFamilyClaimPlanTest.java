package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.DatabaseTest;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestFlavors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * With 200,000 rows in the table, of which the last 10,000 are PENDING, MySQL's and MariaDB's claim
 * reads use the (status, ...) indexes, so their cost does not grow with the PUBLISHED history. The
 * live rows sitting at the end of the primary key is what real tables look like, and what lures the
 * optimizer into walking the primary key in seq order past every finished row.
 */
@ParameterizedClass(name = "{0}", allowZeroInvocations = true)
@MethodSource("flavors")
class MySqlFamilyClaimPlanTest extends DatabaseTest {
  /** Hides {@link DatabaseTest#flavors()}: the plans checked are MySQL's and MariaDB's. */
  static List<Flavor> flavors() {
    return TestFlavors.of(Flavor.MYSQL, Flavor.MARIADB);
  }

  /** A query yielding column {@code n} = 1..200,000. */
  private String numbers() {
    if (flavor() == Flavor.MARIADB) {
      return "SELECT seq AS n FROM seq_1_to_200000";
    }
    // MySQL has no sequence engine: digits cross-joined, 1..200,000.
    return "SELECT a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d + 100000 * g.d + 1 AS n"
        + " FROM "
        + DIGITS
        + " a, "
        + DIGITS
        + " b, "
        + DIGITS
        + " c, "
        + DIGITS
        + " e, "
        + DIGITS
        + " f, (SELECT 0 d UNION ALL SELECT 1) g";
  }

  /** One EXPLAIN row. */
  private record Step(int id, String table, String key, String type, long rows) {}

  private List<Step> plan(Statement statement, int params) throws SQLException {
    String sql =
        "EXPLAIN " + OutboxSql.of(dialect.preset(), TableName.of("outbox_event")).text(statement);
    List<Step> steps = new ArrayList<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 1; i <= params; i++) {
        ps.setInt(i, 500);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          steps.add(
              new Step(
                  rs.getInt("id"),
                  rs.getString("table"),
                  rs.getString("key"),
                  rs.getString("type"),
                  rs.getLong("rows")));
        }
      }
    }
    steps.sort(Comparator.comparingInt(Step::id));
    return steps;
  }

  private void loadHistoryThenBacklog(int aggregates, int pendingFrom) throws SQLException {
    execute(
        "INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type, payload,"
            + " content_type, occurred_at, available_at, status, published_at)"
            + " SELECT UUID(), 'Order', CONCAT('a', n % "
            + aggregates
            + "), 'E', x'00', 'application/json', UTC_TIMESTAMP(6), UTC_TIMESTAMP(6),"
            + " IF(n > "
            + pendingFrom
            + ", 'PENDING', 'PUBLISHED'), UTC_TIMESTAMP(6) FROM ("
            + numbers()
            + ") numbers");
    execute("ANALYZE TABLE outbox_event");
  }

  @Test
  void claims_seek_the_backlog_on_the_claim_index_past_200k_published_rows() throws Exception {
    loadHistoryThenBacklog(1000, 190_000);

    List<Step> unordered = plan(Statements.LOCK_UNORDERED, 1);
    List<Step> candidates = plan(Statements.ORDERED_CANDIDATES, 1);
    List<Step> oldest = plan(Statements.OLDEST_PENDING, 0);

    assertThat(unordered).singleElement().satisfies(s -> assertSeeks(s, "outbox_event_claim_idx"));
    assertThat(candidates).hasSize(4);
    assertSeeks(candidates.get(0), "outbox_event_claim_idx");
    // The "earlier unfinished event?" probes may use any live-row index; each leads with
    // columns that keep PUBLISHED rows out of the scan.
    for (Step probe : candidates.subList(1, 4)) {
      assertSeeks(
          probe, "outbox_event_status_idx", "outbox_event_claim_idx", "outbox_event_aggregate_idx");
      assertThat(probe.rows()).as("rows examined per probe: %s", probe).isLessThan(1000);
    }
    assertThat(oldest).anySatisfy(s -> assertSeeks(s, "outbox_event_status_idx"));
  }

  @Test
  void the_pending_probe_uses_the_aggregate_index_when_few_aggregates_hold_many_events()
      throws Exception {
    loadHistoryThenBacklog(50, 190_000);

    List<Step> candidates = plan(Statements.ORDERED_CANDIDATES, 1);

    // A (status, seq) probe would scan every earlier pending event of the table per candidate.
    assertThat(candidates.get(1).key())
        .as(candidates.toString())
        .isEqualTo("outbox_event_aggregate_idx");
  }

  /** A seek or range on one of these indexes, never a walk of a whole index or the table. */
  private static void assertSeeks(Step step, String... indexes) {
    assertThat(step.key()).as(step.toString()).isIn((Object[]) indexes);
    assertThat(step.type()).as(step.toString()).isNotIn("index", "ALL");
  }
}
