package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.DatabaseTest;
import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.testing.RecordingTransport;
import dev.outboxkit.testkit.Flavor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
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

  /** An index condition on the aggregate of the outer row {@code alias}. */
  private static String probe(String alias) {
    return "Index Cond: \\(+\\(?aggregate_type\\)?(::text)? = \\("
        + alias
        + "\\.aggregate_type\\)::text";
  }

  /** EXPLAIN of a claim, with the planner settings the relay uses for plain claims. */
  private String plan(Statement statement) throws SQLException {
    return plan(statement, 0);
  }

  /** As {@link #plan(Statement)}, the claim starting at {@code floor}. */
  private String plan(Statement statement, long floor) throws SQLException {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try (java.sql.Statement s = c.createStatement()) {
        s.execute(SQL.text(Statements.BEFORE_CLAIM));
      }
      String plan = explain(c, "EXPLAIN ", statement, 500, floor);
      c.rollback();
      return plan;
    }
  }

  /** Runs {@code prefix} and the claim, its parameters bound by name; returns the plan's lines. */
  private static String explain(Connection c, String prefix, Statement st, int limit, long floor)
      throws SQLException {
    NamedSql.Rendered r = SQL.rendered(st);
    StringBuilder plan = new StringBuilder();
    try (PreparedStatement ps = c.prepareStatement(prefix + r.sql)) {
      for (int i : r.positions("owner")) {
        ps.setString(i, "plan@test/1");
      }
      for (int i : r.positions("lease")) {
        ps.setLong(i, 60_000_000);
      }
      for (int i : r.positions("limit")) {
        ps.setInt(i, limit);
      }
      for (int i : r.positions("floor")) {
        ps.setLong(i, floor);
      }
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
  void the_ordered_claim_probes_each_aggregate_after_statistics_of_an_empty_table()
      throws Exception {
    // Analyzed while empty (a new table, or after a purge), then a burst of 10,000 events, each its
    // own aggregate: PostgreSQL planned the NOT EXISTS as a join that read the aggregate index once
    // and compared it with every candidate (1,000,000 rows compared, 200 ms a claim), and
    // has_successor as a walk of the PENDING index past each head.
    execute("VACUUM ANALYZE outbox_event");
    execute(
        "INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type, payload,"
            + " content_type, occurred_at, available_at)"
            + " SELECT gen_random_uuid(), 'Order', 'burst-' || g, 'E', '\\x00'::bytea,"
            + " 'application/json', now(), now() FROM generate_series(1, 10000) g");

    String ordered = plan(Statements.CLAIM_ORDERED);

    assertThat(ordered)
        .contains("Index Scan using outbox_event_claim_idx")
        // Each candidate's predecessors and each head's successors: probes by aggregate.
        .containsPattern(probe("c"))
        .containsPattern(probe("o"))
        .doesNotContain("Materialize")
        .doesNotContain("Join Filter");
  }

  @Test
  void a_claim_plan_the_server_keeps_from_a_table_of_three_rows_still_walks_the_indexes()
      throws Exception {
    // The driver prepares a statement on the server after a few uses, and the server may keep one
    // generic plan for it. Planned while the table held three rows, it read the whole table for
    // every claim once the table had grown: every scan of it must stay an index scan.
    execute("VACUUM ANALYZE outbox_event");
    execute(
        "INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type, payload,"
            + " content_type, occurred_at, available_at)"
            + " SELECT gen_random_uuid(), 'Order', 'a' || g, 'E', '\\x00'::bytea,"
            + " 'application/json', now(), now() FROM generate_series(1, 3) g");
    Map<String, String> args =
        Map.of(
            "owner", "'plan@test/1'",
            "lease", "60000000",
            "limit", "100",
            "floor", "0",
            "aggregate_type", "'Order'",
            "aggregate_id", "'a1'",
            "head", "1");
    for (Statement claim : List.of(Statements.CLAIM_UNORDERED, Statements.CLAIM_ORDERED)) {
      assertThat(keptPlan(claim, Statements.BEFORE_CLAIM, args))
          .as(claim.name())
          .contains("Index Scan using outbox_event_claim_idx on outbox_event c")
          .contains("Index Scan using outbox_event_pkey on outbox_event o")
          .doesNotContain("Seq Scan");
    }
    // The runs behind heads, in either claim's transaction (the sparse one plans more freely).
    for (Statement prelude : List.of(Statements.BEFORE_CLAIM, Statements.BEFORE_SPARSE_CLAIM)) {
      assertThat(keptPlan(Statements.RUN_SUCCESSORS, prelude, args))
          .as(prelude.name())
          .contains("Index Scan")
          .doesNotContain("Seq Scan");
    }
    assertThat(keptPlan(Statements.CLAIM_ORDERED_SPARSE, Statements.BEFORE_SPARSE_CLAIM, args))
        .contains("Index Scan using outbox_event_pkey on outbox_event o")
        .doesNotContain("Seq Scan");
  }

  @Test
  void claim_transactions_keep_one_generic_plan_per_statement() throws Exception {
    // Planning the runs behind ten heads took 7 ms a claim, running them 1 ms.
    for (Statement prelude : List.of(Statements.BEFORE_CLAIM, Statements.BEFORE_SPARSE_CLAIM)) {
      try (Connection c = ds.getConnection();
          java.sql.Statement s = c.createStatement()) {
        c.setAutoCommit(false);
        s.execute(SQL.text(prelude));
        try (ResultSet rs = s.executeQuery("SELECT current_setting('plan_cache_mode')")) {
          rs.next();
          assertThat(rs.getString(1)).as(prelude.name()).isEqualTo("force_generic_plan");
        }
        c.rollback();
      }
    }
  }

  /**
   * The generic plan the server would keep for {@code st} after {@code prelude}, its parameters
   * given as SQL literals by name.
   */
  private String keptPlan(Statement st, Statement prelude, Map<String, String> args)
      throws SQLException {
    NamedSql.Rendered r = SQL.rendered(st);
    StringBuilder numbered = new StringBuilder();
    int n = 0;
    for (char ch : r.sql.toCharArray()) {
      if (ch == '?') {
        numbered.append('$').append(++n);
      } else {
        numbered.append(ch);
      }
    }
    String[] values = new String[n];
    for (String name : st.params()) {
      for (int i : r.positions(name)) {
        values[i - 1] = args.get(name);
      }
    }
    StringBuilder plan = new StringBuilder();
    try (Connection c = ds.getConnection();
        java.sql.Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      s.execute(SQL.text(prelude));
      s.execute("SET LOCAL plan_cache_mode = force_generic_plan");
      s.execute("PREPARE kept AS " + numbered);
      try (ResultSet rs =
          s.executeQuery("EXPLAIN EXECUTE kept(" + String.join(", ", values) + ")")) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
      c.rollback();
      s.execute("DEALLOCATE kept");
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
  void the_scanning_claims_start_at_the_floor_in_each_priority() throws Exception {
    execute(
        "INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type, payload,"
            + " content_type, occurred_at, available_at, priority)"
            + " SELECT gen_random_uuid(), 'Order', 'a' || (g % 1000), 'E', '\\x00'::bytea,"
            + " 'application/json', now(), now(), g % 3 FROM generate_series(1, 20000) g");
    execute("ANALYZE outbox_event");

    for (Statement claim : List.of(Statements.CLAIM_UNORDERED, Statements.CLAIM_ORDERED)) {
      // One index range per priority, each from (priority, floor): the entries below the floor,
      // dead ones included, are never read. No sort: the ranges come in index order.
      assertThat(plan(claim, 15_000))
          .contains("Index Scan using outbox_event_claim_idx on outbox_event c")
          .containsPattern("Index Cond: \\(\\(priority = ANY \\([^)]*\\)\\) AND \\(seq >= ")
          .doesNotContain("Sort");
    }
  }

  @Test
  void the_claim_floor_is_one_probe_per_priority() throws Exception {
    execute(
        "INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type, payload,"
            + " content_type, occurred_at, available_at, status, published_at)"
            + " SELECT gen_random_uuid(), 'Order', 'a' || (g % 1000), 'E', '\\x00'::bytea,"
            + " 'application/json', now(), now(), CASE WHEN g > 199990 THEN 'PENDING' WHEN g % 100"
            + " = 0 THEN 'DEAD' ELSE 'PUBLISHED' END, now() FROM generate_series(1, 200000) g");
    execute("ANALYZE outbox_event");
    String plan = floorPlan(1, "EXPLAIN ANALYZE ");

    assertThat(plan)
        .contains("Index Scan using outbox_event_claim_idx on outbox_event x")
        .containsPattern(probe("x"))
        .contains("Index Only Scan Backward using outbox_event_pkey")
        .doesNotContain("Seq Scan");
  }

  @Test
  void the_claim_floor_reads_the_claim_index_when_every_event_has_the_same_priority()
      throws Exception {
    // Statistics of one priority make "priority = the probe's" look true of every row, and a walk
    // of the primary key in seq order as cheap as the claim index: 50 ms a walk over 10,000 PENDING
    // events instead of 0.1, and runOnce() walks the floor every time.
    execute(
        "INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type, payload,"
            + " content_type, occurred_at, available_at)"
            + " SELECT gen_random_uuid(), 'Order', 'a' || (g % 1000), 'E', '\\x00'::bytea,"
            + " 'application/json', now(), now() FROM generate_series(1, 10000) g");
    execute("VACUUM ANALYZE outbox_event");

    for (int ordered : new int[] {0, 1}) {
      assertThat(floorPlan(ordered, "EXPLAIN "))
          .as("ordered = " + ordered)
          .contains("Index Scan using outbox_event_claim_idx on outbox_event x")
          .doesNotContain("outbox_event_pkey on outbox_event x");
    }
  }

  /**
   * {@code prefix} and the floor's walk, in a claim's transaction (the relay walks it there) with
   * the plan the server would keep for it.
   */
  private String floorPlan(int ordered, String prefix) throws SQLException {
    NamedSql.Rendered r = SQL.rendered(Statements.CLAIM_FLOOR);
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try (java.sql.Statement s = c.createStatement()) {
        s.execute(SQL.text(Statements.BEFORE_CLAIM));
        s.execute("SET LOCAL plan_cache_mode = force_generic_plan");
      }
      StringBuilder lines = new StringBuilder();
      try (PreparedStatement ps = c.prepareStatement(prefix + r.sql)) {
        for (int i : r.positions("ordered")) {
          ps.setInt(i, ordered);
        }
        for (int i : r.positions("ahead")) {
          ps.setLong(i, 10_000_000);
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            lines.append(rs.getString(1)).append('\n');
          }
        }
      }
      c.rollback();
      return lines.toString();
    }
  }

  @Test
  void an_ordered_relay_on_few_aggregates_runs_the_scanning_claim_once() throws Exception {
    // The first claim scans (heads may be plentiful) and, coming back short, reads every pending
    // event; that measured the scanning claim, so the sparse one runs from then on, not a second
    // scan to measure it again.
    execute(
        "INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type, payload,"
            + " content_type, occurred_at, available_at)"
            + " SELECT gen_random_uuid(), 'Order', 'a' || (g % 10), 'E', '\\x00'::bytea,"
            + " 'application/json', now(), now() FROM generate_series(1, 3000) g");
    execute("VACUUM ANALYZE outbox_event");
    Map<String, AtomicInteger> prepared = new ConcurrentHashMap<>();
    DataSource counting = countingPrepares(ds, prepared);
    RecordingTransport transport = new RecordingTransport();

    try (OutboxRelay relay =
        OutboxRelay.builder(counting, transport).ordered(true).batchSize(100).build()) {
      int drained = 0;
      int n;
      while ((n = relay.runOnce()) > 0) {
        drained += n;
      }
      assertThat(drained).isEqualTo(3000);
    }

    assertThat(prepared.get(SQL.rendered(Statements.CLAIM_ORDERED).sql)).hasValue(1);
    assertThat(prepared.get(SQL.rendered(Statements.CLAIM_ORDERED_SPARSE).sql).get())
        .isGreaterThan(10);
  }

  /** {@code ds}, counting the statements its connections prepare, by text. */
  private static DataSource countingPrepares(DataSource ds, Map<String, AtomicInteger> prepared) {
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (p, m, args) -> {
              Object result = invoke(m, ds, args);
              if (!(result instanceof Connection)) {
                return result;
              }
              Connection real = (Connection) result;
              return Proxy.newProxyInstance(
                  Connection.class.getClassLoader(),
                  new Class<?>[] {Connection.class},
                  (c, cm, cargs) -> {
                    if (cm.getName().equals("prepareStatement")) {
                      prepared
                          .computeIfAbsent((String) cargs[0], k -> new AtomicInteger())
                          .incrementAndGet();
                    }
                    return invoke(cm, real, cargs);
                  });
            });
  }

  private static Object invoke(Method m, Object target, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
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
    String plan;
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      // ANALYZE runs it: roll the claim back
      plan = explain(c, "EXPLAIN ANALYZE ", Statements.CLAIM_ORDERED_SPARSE, 100, 0);
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
