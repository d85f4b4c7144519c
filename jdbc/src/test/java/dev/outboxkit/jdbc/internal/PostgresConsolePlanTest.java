package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.DatabaseTest;
import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.testkit.Flavor;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * With 180,000 PUBLISHED rows in the table and 20,000 live ones after them, every read of the
 * operator console stays on the partial indexes of live rows (or a bounded window of a unique key),
 * so a page costs the same with a million PUBLISHED rows as with none.
 */
class PostgresConsolePlanTest extends DatabaseTest {

  private static final OutboxSql SQL =
      OutboxSql.of(Dialect.POSTGRESQL.preset(), TableName.of("outbox_event"));

  /**
   * What the console binds where a test does not say otherwise: every filter off, the whole time
   * range (AdminQueries' bounds), the first page.
   */
  private static final Map<String, Object> CONSOLE =
      Map.ofEntries(
          Map.entry("note_prefix", HoldNote.PREFIX + "%"),
          Map.entry("after", 0L),
          Map.entry("any_destination", 1),
          Map.entry("destination", ""),
          Map.entry("any_event_type", 1),
          Map.entry("event_type", ""),
          Map.entry("any_aggregate_type", 1),
          Map.entry("aggregate_type", ""),
          Map.entry("any_aggregate_id", 1),
          Map.entry("aggregate_id", ""),
          Map.entry("dead_from", Instant.parse("1970-01-02T00:00:00Z")),
          Map.entry("dead_to", Instant.parse("9000-01-01T00:00:00Z")));

  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }

  /**
   * 200,000 rows in 1,000 aggregates: 1..180,000 PUBLISHED, then the live tail (as in a real
   * table): every tenth DEAD, the next IN_FLIGHT with one of three relays, the rest PENDING, of
   * which one in eight (1,000) is held back for an hour with a hold note.
   */
  @BeforeEach
  void loadHistoryThenLiveRows() throws SQLException {
    execute(
        "INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type, destination,"
            + " tenant, payload, content_type, occurred_at, available_at, status, published_at,"
            + " lease_owner, lease_until, last_error)"
            + " SELECT gen_random_uuid(), 'Order', 'a' || (g % 1000), 'E' || (g % 5),"
            + " 'd' || (g % 4), 't' || (g % 3), '\\x00'::bytea, 'application/json', now(),"
            + " CASE WHEN held THEN now() + interval '1 hour' ELSE now() END, status,"
            + " CASE WHEN status IN ('PUBLISHED', 'DEAD') THEN now() END,"
            + " CASE WHEN status = 'IN_FLIGHT' THEN 'relay-' || (g % 3) END,"
            + " CASE WHEN status = 'IN_FLIGHT' THEN now() + interval '1 minute' END,"
            + " CASE WHEN held THEN '"
            + HoldNote.PREFIX
            + "2026-01-01T00:00:00Z: 503' WHEN status = 'DEAD' THEN 'boom' END"
            + " FROM (SELECT g, g > 180000 AND g % 20 = 2 AS held,"
            + " CASE WHEN g <= 180000 THEN 'PUBLISHED' WHEN g % 10 = 0 THEN 'DEAD'"
            + " WHEN g % 10 = 1 THEN 'IN_FLIGHT' ELSE 'PENDING' END AS status"
            + " FROM generate_series(1, 200000) g) r");
    execute("ANALYZE outbox_event");
  }

  /** EXPLAIN of a statement bound with the console's values, overridden by {@code values}. */
  private String plan(Statement statement, Map<String, Object> values) throws SQLException {
    NamedSql.Rendered rendered = SQL.rendered(statement);
    StringBuilder plan = new StringBuilder();
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement("EXPLAIN " + rendered.sql)) {
      for (String name : statement.params()) {
        Object value = values.containsKey(name) ? values.get(name) : CONSOLE.get(name);
        for (int i : rendered.positions(name)) {
          bind(ps, i, value);
        }
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
    }
    return plan.toString();
  }

  private static void bind(PreparedStatement ps, int i, Object value) throws SQLException {
    if (value instanceof Instant) {
      SQL.dialect().setInstant(ps, i, (Instant) value);
    } else if (value instanceof UUID) {
      SQL.dialect().setUuid(ps, i, (UUID) value);
    } else {
      ps.setObject(i, value);
    }
  }

  private UUID publishedId() throws SQLException {
    try (Connection c = ds.getConnection();
        java.sql.Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT id FROM outbox_event WHERE status = 'PUBLISHED' LIMIT 1")) {
      rs.next();
      return SQL.dialect().getUuid(rs, "id");
    }
  }

  @Test
  void the_overview_reads_the_claim_index_and_a_window_of_the_primary_key() throws Exception {
    // As the console's overview asks: the next 20,000 PENDING events in claim order, 2,000 groups,
    // 100 relays, the 20,000 newest rows over 15 minutes.
    String groups = plan(Statements.LIVE_GROUPS, Map.of("sample", 20_000, "limit", 2000));
    String holders = plan(Statements.LEASE_HOLDERS, Map.of("limit", 100));
    String recent =
        plan(Statements.RECENT_PUBLISHED, Map.of("window", 900_000_000L, "limit", 20_000));

    // Here the sample holds every PENDING row (16,000): read from the claim index, sorted.
    assertThat(groups).contains("outbox_event_claim_idx").doesNotContain("Seq Scan");
    // A backlog larger than the sample: the claim index read in claim order, stopped by the
    // sample's limit, so no row is sorted and no more rows are read.
    String sampled = plan(Statements.LIVE_GROUPS, Map.of("sample", 2000, "limit", 2000));
    assertThat(sampled)
        .contains("Index Scan using outbox_event_claim_idx")
        .doesNotContain("Seq Scan");
    assertThat(sampled.substring(sampled.indexOf("->  Limit"))).doesNotContain("Sort");
    assertThat(holders).contains("outbox_event_lease_idx").doesNotContain("Seq Scan");
    assertThat(recent)
        .contains("Index Scan Backward using outbox_event_pkey")
        .doesNotContain("Seq Scan");
  }

  @Test
  void dead_pages_walk_the_dead_index_in_seq_order_with_or_without_a_filter() throws Exception {
    String all = plan(Statements.FIND_DEAD, Map.of("limit", 500));
    String ofDestination =
        plan(Statements.FIND_DEAD, Map.of("limit", 500, "any_destination", 0, "destination", "d2"));

    for (String page : new String[] {all, ofDestination}) {
      assertThat(page)
          .contains("Index Scan using outbox_event_dead_idx")
          .doesNotContain("Seq Scan")
          .doesNotContain("Sort");
    }
  }

  @Test
  void an_event_is_found_by_its_id_and_an_aggregate_by_the_aggregate_index() throws Exception {
    UUID published = publishedId();
    String event = plan(Statements.FIND_EVENT, Map.of("id", published));
    String aggregate =
        plan(
            Statements.LIVE_OF_AGGREGATE,
            Map.of("aggregate_type", "Order", "aggregate_id", "a7", "limit", 200));

    assertThat(event).contains("Index Scan using outbox_event_id_key").doesNotContain("Seq Scan");
    assertThat(aggregate)
        .contains("Index Scan using outbox_event_aggregate_idx")
        .doesNotContain("Seq Scan")
        .doesNotContain("Sort");
  }
}
