package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.DatabaseTest;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestFlavors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * With 180,000 PUBLISHED rows in the table and 20,000 live ones after them, every read of the
 * operator console seeks the (status, ...), aggregate or unique id index, or reads a bounded window
 * of the primary key, on MySQL and MariaDB: a page costs the same with a million PUBLISHED rows as
 * with none. The live rows at the end of the primary key are what lure the optimizer into walking
 * it in seq order past every finished row.
 */
@ParameterizedClass(name = "{0}", allowZeroInvocations = true)
@MethodSource("flavors")
class MySqlFamilyConsolePlanTest extends DatabaseTest {
  /** Hides {@link DatabaseTest#flavors()}: the plans checked are MySQL's and MariaDB's. */
  static List<Flavor> flavors() {
    return TestFlavors.of(Flavor.MYSQL, Flavor.MARIADB);
  }

  private static final int ROWS = 200_000;

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
            + " SELECT UUID(), 'Order', CONCAT('a', n % 1000), CONCAT('E', n % 5),"
            + " CONCAT('d', n % 4), CONCAT('t', n % 3), x'00', 'application/json',"
            + " UTC_TIMESTAMP(6),"
            + " CASE WHEN held THEN UTC_TIMESTAMP(6) + INTERVAL 1 HOUR ELSE UTC_TIMESTAMP(6) END,"
            + " status, CASE WHEN status IN ('PUBLISHED', 'DEAD') THEN UTC_TIMESTAMP(6) END,"
            + " CASE WHEN status = 'IN_FLIGHT' THEN CONCAT('relay-', n % 3) END,"
            + " CASE WHEN status = 'IN_FLIGHT' THEN UTC_TIMESTAMP(6) + INTERVAL 1 MINUTE END,"
            + " CASE WHEN held THEN '"
            + HoldNote.PREFIX
            + "2026-01-01T00:00:00Z: 503' WHEN status = 'DEAD' THEN 'boom' END"
            + " FROM (SELECT n, n > 180000 AND n % 20 = 2 AS held,"
            + " CASE WHEN n <= 180000 THEN 'PUBLISHED' WHEN n % 10 = 0 THEN 'DEAD'"
            + " WHEN n % 10 = 1 THEN 'IN_FLIGHT' ELSE 'PENDING' END AS status FROM ("
            + numbers()
            + ") numbers) r");
    execute("ANALYZE TABLE outbox_event");
  }

  /** One EXPLAIN row. */
  private record Step(int id, String table, String key, String type, long rows, String extra) {}

  /** EXPLAIN of a statement bound with the console's values, overridden by {@code values}. */
  private List<Step> plan(Statement statement, Map<String, Object> values) throws SQLException {
    OutboxSql sql = OutboxSql.of(dialect.preset(), TableName.of("outbox_event"));
    NamedSql.Rendered rendered = sql.rendered(statement);
    List<Step> steps = new ArrayList<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement("EXPLAIN " + rendered.sql)) {
      for (String name : statement.params()) {
        Object value = values.containsKey(name) ? values.get(name) : CONSOLE.get(name);
        for (int i : rendered.positions(name)) {
          if (value instanceof Instant) {
            sql.dialect().setInstant(ps, i, (Instant) value);
          } else if (value instanceof UUID) {
            sql.dialect().setUuid(ps, i, (UUID) value);
          } else {
            ps.setObject(i, value);
          }
        }
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          steps.add(
              new Step(
                  rs.getInt("id"),
                  rs.getString("table"),
                  rs.getString("key"),
                  rs.getString("type"),
                  rs.getLong("rows"),
                  rs.getString("Extra")));
        }
      }
    }
    steps.sort(Comparator.comparingInt(Step::id));
    return steps;
  }

  private UUID publishedId() throws SQLException {
    try (Connection c = ds.getConnection();
        java.sql.Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT id FROM outbox_event WHERE status = 'PUBLISHED' LIMIT 1")) {
      rs.next();
      return UUID.fromString(rs.getString("id"));
    }
  }

  @Test
  void the_overview_seeks_the_claim_index_and_reads_a_window_of_the_primary_key() throws Exception {
    // As the console's overview asks: the next 20,000 PENDING events in claim order, 2,000 groups,
    // 100 relays, the 20,000 newest rows over 15 minutes.
    List<Step> groups = plan(Statements.LIVE_GROUPS, Map.of("sample", 20_000, "limit", 2000));
    List<Step> holders = plan(Statements.LEASE_HOLDERS, Map.of("limit", 100));
    List<Step> recent =
        plan(Statements.RECENT_PUBLISHED, Map.of("window", 900_000_000L, "limit", 20_000));

    // The derived tables are read as a whole (they hold at most the sample); the table itself is
    // read through the claim index in claim order (no filesort) and through the primary key.
    assertThat(onTable(groups))
        .singleElement()
        .satisfies(
            s -> {
              assertSeeks(s, "outbox_event_claim_idx");
              assertThat(String.valueOf(s.extra())).as(s.toString()).doesNotContain("filesort");
            });
    String[] byStatus = {
      "outbox_event_status_idx", "outbox_event_claim_idx", "outbox_event_lease_idx"
    };
    assertThat(holders).singleElement().satisfies(s -> assertSeeks(s, byStatus));
    assertThat(onTable(recent))
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.key()).as(s.toString()).isEqualTo("PRIMARY");
              assertThat(String.valueOf(s.extra())).as(s.toString()).doesNotContain("filesort");
            });
  }

  /** The steps that read the outbox table itself, not a derived table. */
  private static List<Step> onTable(List<Step> steps) {
    return steps.stream().filter(s -> "outbox_event".equals(s.table())).toList();
  }

  @Test
  void dead_pages_seek_the_status_index_in_seq_order_with_or_without_a_filter() throws Exception {
    List<Step> all = plan(Statements.FIND_DEAD, Map.of("limit", 500));
    List<Step> ofDestination =
        plan(Statements.FIND_DEAD, Map.of("limit", 500, "any_destination", 0, "destination", "d2"));

    // (status, seq) yields the DEAD rows in page order: no sort, and the limit stops the read.
    for (List<Step> page : List.of(all, ofDestination)) {
      assertThat(page)
          .singleElement()
          .satisfies(
              s -> {
                assertSeeks(s, "outbox_event_status_idx");
                assertThat(s.extra()).as(s.toString()).doesNotContain("filesort");
              });
    }
  }

  @Test
  void an_event_is_found_by_its_id_and_an_aggregate_by_the_aggregate_index() throws Exception {
    List<Step> event = plan(Statements.FIND_EVENT, Map.of("id", publishedId()));
    List<Step> aggregate =
        plan(
            Statements.LIVE_OF_AGGREGATE,
            Map.of("aggregate_type", "Order", "aggregate_id", "a7", "limit", 200));

    assertThat(event)
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.key()).as(s.toString()).isEqualTo("outbox_event_id_key");
              assertThat(s.type()).as(s.toString()).isEqualTo("const");
            });
    // The aggregate holds 200 rows, 20 of them live: the seek takes the statuses too.
    assertThat(aggregate)
        .singleElement()
        .satisfies(
            s -> {
              assertSeeks(s, "outbox_event_aggregate_idx");
              assertThat(s.rows()).as(s.toString()).isLessThan(100);
            });
  }

  /**
   * A seek or range on one of these indexes, never a walk of a whole index or the table, reading
   * fewer rows than the PUBLISHED history holds.
   */
  private static void assertSeeks(Step step, String... indexes) {
    assertThat(step.key()).as(step.toString()).isIn((Object[]) indexes);
    assertThat(step.type()).as(step.toString()).isNotIn("index", "ALL");
    assertThat(step.rows()).as(step.toString()).isLessThan(ROWS / 4);
  }
}
