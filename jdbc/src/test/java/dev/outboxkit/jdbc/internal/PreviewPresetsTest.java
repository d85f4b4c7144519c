package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.jdbc.dialect.ClaimCapability;
import dev.outboxkit.jdbc.dialect.IdColumn;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import java.lang.reflect.Proxy;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The Oracle and SQL Server presets are previews: no server of either kind runs in this project's
 * CI. What can be checked without one is checked here, in H2's compatibility mode for each: the
 * preset builds (every statement present, parameters as declared), every statement renders, the DDL
 * creates the tables, and every statement runs, returning the columns it declares, except those
 * {@code notInH2} lists with the reason (each asserted to fail in H2, so the list stays true). H2
 * running a statement shows that its columns, parameters and types fit together; it is no proof
 * that the vendor accepts it, and says nothing of locking: H2 reads {@code FOR UPDATE SKIP LOCKED}
 * its own way and parses SQL Server's table hints ({@code UPDLOCK, READPAST, ROWLOCK}, {@code
 * UPDLOCK, HOLDLOCK}) only to ignore them.
 *
 * <p>H2 lacks the vendors' clock functions; the test defines them ({@link VendorClock}) with the
 * documented meaning on a fixed clock, which also makes the clock arithmetic checkable.
 */
class PreviewPresetsTest {
  /** The database clock the shims answer. */
  static final LocalDateTime NOW = LocalDateTime.of(2026, 3, 4, 5, 6, 7, 123_456_000);

  /**
   * Micros bound where a statement takes them: below 2^31 because H2 types the parameter of {@code
   * :p / 1000000} and {@code :p % 1000000} as INTEGER (from the literal), which neither vendor
   * does.
   */
  private static final long MICROS = 2_000_000_001L;

  @Test
  void oracle_builds_renders_and_runs_in_h2_oracle_mode() throws SQLException {
    SqlDialect oracle = Dialect.ORACLE.preset();
    assertThat(oracle.claimCapability()).isEqualTo(ClaimCapability.SKIP_LOCKED);
    assertThat(oracle.ids()).isEqualTo(IdColumn.BYTES);
    assertThat(oracle.statement("boundTransaction")).isEmpty();
    check(
        oracle,
        "Oracle",
        List.of(
            "CREATE ALIAS SYS_EXTRACT_UTC FOR '" + shim("sysExtractUtc") + "'",
            "CREATE ALIAS NUMTODSINTERVAL FOR '" + shim("numToDsInterval") + "'"),
        // H2 has no EMPTY_BLOB() and writes DEFAULT ON NULL after the default, not before it.
        Map.of("DEFAULT ON NULL EMPTY_BLOB()", "NOT NULL"),
        Map.of(
            "inboxInsert",
            "H2 refuses a table alias after INSERT INTO (the alias the"
                + " IGNORE_ROW_ON_DUPKEY_INDEX hint names), and would ignore the hint anyway",
            "inboxVersionCreate",
            "the same alias and hint as inboxInsert"));
  }

  @Test
  void sql_server_builds_renders_and_runs_in_h2_mssqlserver_mode() throws SQLException {
    SqlDialect sqlServer = Dialect.SQLSERVER.preset();
    assertThat(sqlServer.claimCapability()).isEqualTo(ClaimCapability.SKIP_LOCKED);
    assertThat(sqlServer.ids()).isEqualTo(IdColumn.TEXT);
    assertThat(sqlServer.statement("boundTransaction")).isEmpty();
    check(
        sqlServer,
        "MSSQLServer",
        List.of("CREATE ALIAS SYSUTCDATETIME FOR '" + shim("sysUtcDateTime") + "'"),
        // H2 takes no COLLATE in a column definition (its comparisons are binary anyway), nor
        // NONCLUSTERED.
        Map.of(" COLLATE Latin1_General_100_BIN2", "", "PRIMARY KEY NONCLUSTERED", "PRIMARY KEY"),
        Map.of());
  }

  @Test
  void the_drivers_product_names_detect_the_presets() throws SQLException {
    assertThat(Dialect.detect(metadata("Oracle", "Oracle Database 19c Enterprise Edition")))
        .isEqualTo(Dialect.ORACLE);
    assertThat(Dialect.detect(metadata("Microsoft SQL Server", "16.00.4135")))
        .isEqualTo(Dialect.SQLSERVER);
    assertThat(Dialect.ORACLE.preset().name()).isEqualTo("Oracle");
    assertThat(Dialect.of(Dialect.SQLSERVER.preset())).isEqualTo(Dialect.SQLSERVER);
  }

  @Test
  void the_clocks_move_by_exact_microseconds() throws SQLException {
    // 33 min 20 s and 1 µs: the seconds and the microseconds parts of the SQL Server split.
    Duration shift = Duration.ofSeconds(2_000, 1_000);
    try (Connection c =
        h2(
            "MSSQLServer",
            List.of("CREATE ALIAS SYSUTCDATETIME FOR '" + shim("sysUtcDateTime") + "'"))) {
      SqlDialect d = Dialect.SQLSERVER.preset();
      assertThat(clock(c, "SELECT " + d.nowPlusMicros(), MICROS)).isEqualTo(NOW.plus(shift));
      assertThat(clock(c, "SELECT " + d.nowMinusMicros(), MICROS)).isEqualTo(NOW.minus(shift));
    }
    // Whole seconds only: H2 divides the INTEGER-typed parameter by 1000000 as integers, where
    // Oracle's NUMBER division is exact.
    try (Connection c =
        h2(
            "Oracle",
            List.of(
                "CREATE ALIAS SYS_EXTRACT_UTC FOR '" + shim("sysExtractUtc") + "'",
                "CREATE ALIAS NUMTODSINTERVAL FOR '" + shim("numToDsInterval") + "'"))) {
      SqlDialect d = Dialect.ORACLE.preset();
      long seconds = 2_000_000_000L;
      assertThat(clock(c, "SELECT " + d.nowPlusMicros() + " FROM dual", seconds))
          .isEqualTo(NOW.plusSeconds(2_000));
      assertThat(clock(c, "SELECT " + d.nowMinusMicros() + " FROM dual", seconds))
          .isEqualTo(NOW.minusSeconds(2_000));
    }
  }

  @Test
  void sql_server_run_read_returns_only_the_due_prefix_whatever_the_union_order()
      throws SQLException {
    try (Connection c =
        h2(
            "MSSQLServer",
            List.of("CREATE ALIAS SYSUTCDATETIME FOR '" + shim("sysUtcDateTime") + "'"))) {
      SqlDialect inH2 =
          adapted(Dialect.SQLSERVER.preset(), Map.of(" COLLATE Latin1_General_100_BIN2", ""));
      OutboxSql sql = OutboxSql.of(inH2, TableName.of("outbox_event"));
      OutboxSchema.create(c, "outbox_event", inH2);
      long head = append(c, sql, "a-1", 0, "IN_FLIGHT");
      long due = append(c, sql, "a-1", 0, "PENDING");
      long other = append(c, sql, "a-2", 0, "PENDING");
      append(c, sql, "a-1", 60_000_000, "PENDING"); // not due: ends a-1's run
      append(c, sql, "a-1", 0, "PENDING"); // due, but behind the one not due
      List<Long> run = new ArrayList<>();
      try (Query q = Query.union(c, sql, Statements.RUN_SUCCESSORS, 2)) {
        q.part(0).setString("aggregate_type", "order").setString("aggregate_id", "a-1");
        q.setLong("head", head).setInt("limit", 10);
        q.part(1).setString("aggregate_type", "order").setString("aggregate_id", "a-2");
        q.setLong("head", 0).setInt("limit", 10);
        try (ResultSet rs = q.executeQuery()) {
          while (rs.next()) {
            assertThat(rs.getInt("due")).isEqualTo(1);
            run.add(rs.getLong("seq"));
          }
        }
      }
      assertThat(run).containsExactlyInAnyOrder(due, other);
    }
  }

  /** Builds, renders and runs every statement of a preset in H2's mode for it. */
  private static void check(
      SqlDialect preset,
      String mode,
      List<String> shims,
      Map<String, String> ddlForH2,
      Map<String, String> notInH2)
      throws SQLException {
    assertThat(preset.statementNames()).containsAll(notInH2.keySet());
    OutboxSql rendered = OutboxSql.of(preset, TableName.of("app.outbox_event"));
    for (Statement st : Statements.all()) {
      if (preset.statement(st.name()).isPresent()) {
        assertThat(rendered.text(st)).as("%s %s", preset, st).doesNotContain("{", "}", ":");
      }
    }
    SqlDialect inH2 = adapted(preset, ddlForH2);
    List<String> ran = new ArrayList<>();
    try (Connection c = h2(mode, shims)) {
      OutboxSchema.create(c, "outbox_event", inH2);
      OutboxSchema.createInbox(c, "outbox_inbox", inH2);
      OutboxSql outbox = OutboxSql.of(inH2, TableName.of("outbox_event"));
      OutboxSql inbox = OutboxSql.of(inH2, TableName.of("outbox_inbox"));
      OutboxSql versions = OutboxSql.of(inH2, TableName.of("outbox_inbox_version"));
      append(c, outbox, "a-1", 0, "PENDING");
      for (Statement st : Statements.all()) {
        if (!preset.statement(st.name()).isPresent()) {
          continue;
        }
        OutboxSql on = StatementSamples.table(st, outbox, inbox, versions);
        if (notInH2.containsKey(st.name())) {
          assertThatThrownBy(() -> run(c, on, st))
              .as("%s %s is listed as not running in H2: %s", preset, st, notInH2.get(st.name()))
              .isInstanceOf(SQLException.class);
        } else {
          run(c, on, st);
          ran.add(st.name());
        }
      }
    }
    assertThat(ran)
        .contains("insert", "lockUnordered", "lockCandidates", "orderedCandidatesInWindow")
        .contains("runSuccessors", "snapshot", "retentionWindow", "inboxPurge")
        .contains("inboxDelete", "inboxVersionLock", "inboxVersionSet");
  }

  /** The preset with the DDL H2 reads, and H2's error codes; its statements as they are. */
  private static SqlDialect adapted(SqlDialect preset, Map<String, String> ddlForH2) {
    String schema = preset.schema().orElseThrow();
    String inbox = preset.inboxSchema().orElseThrow();
    for (Map.Entry<String, String> e : ddlForH2.entrySet()) {
      assertThat(schema + inbox).as("%s DDL", preset).contains(e.getKey());
      schema = schema.replace(e.getKey(), e.getValue());
      inbox = inbox.replace(e.getKey(), e.getValue());
    }
    return preset.toBuilder(preset.name() + ", DDL as H2 reads it")
        .schema(schema)
        .inboxSchema(inbox)
        .errors(Dialect.H2.preset().errors())
        .build();
  }

  /** Runs one statement with a value of the right type for each parameter, as the engine binds. */
  private static void run(Connection c, OutboxSql sql, Statement st) throws SQLException {
    try (Query q =
        st.listParam() != null
            ? Query.prepare(c, sql, st, 2)
            : st == Statements.RUN_SUCCESSORS
                ? Query.union(c, sql, st, 2)
                : Query.prepare(c, sql, st)) {
      int parts = st == Statements.RUN_SUCCESSORS ? 2 : 1;
      for (int part = 0; part < parts; part++) {
        StatementSamples.bind(q.part(part), st, MICROS);
      }
      if (st == Statements.LOCK_UNORDERED || st == Statements.LOCK_CANDIDATES) {
        q.maxRows(10);
      }
      String text = sql.text(st).stripLeading();
      if (text.startsWith("SELECT") || text.startsWith("(")) {
        try (ResultSet rs = q.executeQuery()) {
          if (!st.columns().isEmpty()) {
            Set<String> labels = new TreeSet<>();
            for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
              labels.add(rs.getMetaData().getColumnLabel(i).toLowerCase(Locale.ROOT));
            }
            Set<String> declared = new TreeSet<>();
            st.columns().forEach(col -> declared.add(col.toLowerCase(Locale.ROOT)));
            assertThat(labels).as("columns of %s", st).isEqualTo(declared);
          }
          while (rs.next()) {
            rs.getObject(1);
          }
        }
      } else {
        q.executeUpdate();
      }
    }
  }

  /** Appends an event through the preset's insert and sets its status; returns its seq. */
  private static long append(
      Connection c, OutboxSql sql, String aggregateId, long delayMicros, String status)
      throws SQLException {
    try (Query q = Query.prepare(c, sql, Statements.INSERT)) {
      q.setUuid("id", UUID.randomUUID())
          .setString("aggregate_type", "order")
          .setString("aggregate_id", aggregateId)
          .setString("event_type", "placed")
          .setInt("schema_version", 1)
          .setString("destination", null)
          .setString("tenant", null)
          .setBytes("payload", new byte[] {1})
          .setString("content_type", "application/json")
          .setString("headers", null)
          .setInstant("occurred_at", Instant.parse("2026-03-04T05:06:07Z"))
          .setInstant("expires_at", null)
          .setLong("aggregate_version", java.util.OptionalLong.empty())
          .setString("supersede_key", null)
          .setInt("priority", 0)
          .setLong("delay", delayMicros)
          .executeUpdate();
    }
    try (java.sql.Statement s = c.createStatement()) {
      s.executeUpdate(
          "UPDATE outbox_event SET status = '"
              + status
              + "' WHERE seq = "
              + "(SELECT MAX(seq) FROM outbox_event)");
      try (ResultSet rs = s.executeQuery("SELECT MAX(seq) FROM outbox_event")) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** A clock template of the dialect, {@code {micros}} bound to the value everywhere. */
  private static LocalDateTime clock(Connection c, String expression, long micros)
      throws SQLException {
    try (java.sql.PreparedStatement ps = c.prepareStatement(expression.replace("{micros}", "?"))) {
      int marks = (int) expression.chars().filter(ch -> ch == '{').count();
      for (int i = 1; i <= marks; i++) {
        ps.setLong(i, micros);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getObject(1, LocalDateTime.class);
      }
    }
  }

  /** Metadata that answers only the product's name and version, as the drivers report them. */
  private static DatabaseMetaData metadata(String product, String version) {
    return (DatabaseMetaData)
        Proxy.newProxyInstance(
            PreviewPresetsTest.class.getClassLoader(),
            new Class<?>[] {DatabaseMetaData.class},
            (proxy, method, args) -> {
              switch (method.getName()) {
                case "getDatabaseProductName":
                  return product;
                case "getDatabaseProductVersion":
                  return version;
                default:
                  throw new UnsupportedOperationException(method.getName());
              }
            });
  }

  private static Connection h2(String mode, List<String> shims) throws SQLException {
    Connection c =
        DriverManager.getConnection("jdbc:h2:mem:preview-" + UUID.randomUUID() + ";MODE=" + mode);
    try (java.sql.Statement s = c.createStatement()) {
      for (String shim : shims) {
        s.execute(shim);
      }
    }
    return c;
  }

  private static String shim(String method) {
    return VendorClock.class.getName() + "." + method;
  }

  /** The vendors' clock functions H2 lacks; public, because H2 calls them by reflection. */
  public static final class VendorClock {
    private VendorClock() {}

    /** Oracle's SYS_EXTRACT_UTC(SYSTIMESTAMP): the fixed clock, in UTC. */
    public static LocalDateTime sysExtractUtc(OffsetDateTime ignored) {
      return NOW;
    }

    /** Oracle's NUMTODSINTERVAL(n, 'SECOND'): n seconds, fractions down to nanoseconds. */
    public static Duration numToDsInterval(BigDecimal n, String unit) {
      if (!"SECOND".equals(unit)) {
        throw new IllegalArgumentException("only SECOND is used, was " + unit);
      }
      return Duration.ofNanos(n.movePointRight(9).longValueExact());
    }

    /** SQL Server's SYSUTCDATETIME(): the fixed clock, in UTC. */
    public static LocalDateTime sysUtcDateTime() {
      return NOW;
    }
  }
}
