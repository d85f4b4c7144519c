package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class SqlStatementsTest {
  /** The statements each claim strategy asks its dialect for. */
  private static final Map<Class<?>, Set<String>> CLAIM_STATEMENTS =
      Map.of(
          ReturningClaim.class,
          Set.of("claimUnordered", "claimOrdered", "claimOrderedSparse", "beforeClaim"),
          SteppedClaim.class,
          Set.of(
              "lockUnordered", "orderedCandidates", "orderedCandidatesInWindow", "lockCandidates"));

  private static final Set<String> OPTIONAL =
      Set.of("beforeRelayTransaction", "boundTransaction", "unboundTransaction");

  @Test
  void parse_keeps_each_statement_whole_and_drops_comment_lines() {
    Map<String, String> statements =
        SqlStatements.parse(
            "t.sql",
            "-- header\n\n-- why this reads so\n-- name: first\nSELECT a\n  FROM t   \n"
                + " -- inner note\n WHERE b = ?\n\n-- name: second\nDELETE FROM t\n");

    assertThat(statements)
        .containsExactly(
            Map.entry("first", "SELECT a\n  FROM t\n WHERE b = ?"),
            Map.entry("second", "DELETE FROM t"));
  }

  @Test
  void parse_refuses_a_statement_defined_twice_empty_or_without_a_name() {
    assertThatThrownBy(() -> SqlStatements.parse("t.sql", "-- name: a\nSELECT 1\n-- name: a\nX"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("t.sql: statement 'a' is defined twice");
    assertThatThrownBy(() -> SqlStatements.parse("t.sql", "-- name: a\n-- only a comment\n"))
        .hasMessage("t.sql: statement 'a' is empty");
    assertThatThrownBy(() -> SqlStatements.parse("t.sql", "SELECT 1\n-- name: a\nSELECT 2"))
        .hasMessage("t.sql: SQL before the first '-- name:' line");
    assertThatThrownBy(() -> SqlStatements.parse("t.sql", "-- name:\nSELECT 2"))
        .hasMessage("t.sql: a '-- name:' line without a name");
  }

  @Test
  void load_lets_a_later_file_replace_a_name() {
    Map<String, String> common = SqlStatements.load(MySqlDialect.CLOCK, "common.sql");
    Map<String, String> mysql = SqlStatements.load(MySqlDialect.CLOCK, "common.sql", "mysql.sql");

    assertThat(mysql.get("listDead")).contains("IGNORE INDEX").isNotEqualTo(common.get("listDead"));
    assertThat(mysql.get("countStatus")).isEqualTo(common.get("countStatus"));
  }

  @Test
  void a_vendor_file_states_only_what_differs_from_common_beyond_its_clock() {
    Map<String, SqlClock> clocks =
        Map.of(
            "postgresql.sql", PostgresDialect.CLOCK,
            "mysql.sql", MySqlDialect.CLOCK,
            "mariadb.sql", MySqlDialect.CLOCK,
            "h2.sql", H2Dialect.CLOCK);
    clocks.forEach(
        (vendor, now) -> {
          Map<String, String> common = SqlStatements.load(now, "common.sql");
          SqlStatements.load(now, vendor)
              .forEach(
                  (name, sql) ->
                      assertThat(sql.replaceAll("\\s+", " "))
                          .as("%s repeats common.sql's %s", vendor, name)
                          .isNotEqualTo(common.getOrDefault(name, "").replaceAll("\\s+", " ")));
        });
  }

  @Test
  void the_clock_placeholders_become_the_vendors_time_arithmetic() {
    SqlClock clock = new SqlClock("NOW", "NOW + ?", "NOW - ?");

    assertThat(clock.render("a = {now+micros}, b < {now-micros}, c <= {now}"))
        .isEqualTo("a = NOW + ?, b < NOW - ?, c <= NOW");
    Map<String, String> postgres = SqlStatements.load(PostgresDialect.CLOCK, "common.sql");
    assertThat(postgres.get("markRetry"))
        .contains("available_at = now() + ? * INTERVAL '1 microsecond'");
    assertThat(SqlStatements.load(MySqlDialect.CLOCK, "common.sql").get("purgeRetained"))
        .contains("published_at < TIMESTAMPADD(MICROSECOND, -?, UTC_TIMESTAMP(6))");
  }

  @Test
  void every_statement_renders_without_a_placeholder_left_but_the_seqs() {
    for (SqlDialect dialect :
        new SqlDialect[] {
          new PostgresDialect(), new MySqlDialect(), new MariaDbDialect(), new H2Dialect()
        }) {
      OutboxSql sql = OutboxSql.of(dialect, TableName.of("app.outbox_event"));
      for (String name : dialect.statementNames()) {
        String rendered = sql.sql(dialect.statement(name), 2);
        assertThat(rendered).as("%s %s", dialect.name(), name).doesNotContain("{", "}");
      }
    }
    String claim =
        OutboxSql.of(new PostgresDialect(), TableName.of("outbox_event"))
            .sql(((ReturningClaim) new PostgresDialect().claims()).unordered());
    assertThat(claim)
        .contains("RETURNING o.seq, o.id, o.aggregate_type, o.aggregate_id, o.event_type,")
        .contains("o.expires_at, o.attempts, (o.expires_at <= now()) AS expired");
    assertThat(
            OutboxSql.of(new H2Dialect(), TableName.of("outbox_event"))
                .sql(new H2Dialect().insert()))
        .startsWith("INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type,")
        .endsWith(
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP))");
  }

  @Test
  void every_dialect_has_each_statement_it_runs_and_names_no_other() throws Throwable {
    Set<String> accessors = statementMethods();
    for (SqlDialect dialect :
        new SqlDialect[] {
          new PostgresDialect(), new MySqlDialect(), new MariaDbDialect(), new H2Dialect()
        }) {
      Set<String> claims = CLAIM_STATEMENTS.get(dialect.claims().getClass());
      for (String name : dialect.statementNames()) {
        assertThat(accessors.contains(name) || claims.contains(name))
            .as("%s names %s, which nothing runs", dialect.name(), name)
            .isTrue();
      }
      for (String name : accessors) {
        String sql = invoke(SqlDialect.class.getMethod(name), dialect);
        if (!OPTIONAL.contains(name)) {
          assertThat(sql).as("%s %s", dialect.name(), name).isNotBlank();
        }
      }
      assertThat(dialect.statementNames()).as(dialect.name()).containsAll(claims);
    }
  }

  @Test
  void a_dialect_without_a_statement_it_needs_fails_to_load_naming_it() {
    // H2's files have the stepped claim's statements, not the one-statement claim's.
    assertThatThrownBy(
            () ->
                new SqlDialect("Test", H2Dialect.CLOCK, "h2.sql", ReturningClaim::new, "h2.sql") {})
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Test has no statement claimUnordered in /dev/outboxkit/jdbc/sql/");
    // common.sql alone has no inbox insert: every vendor ignores a duplicate its own way.
    assertThatThrownBy(
            () -> new SqlDialect("Bare", H2Dialect.CLOCK, "h2.sql", SteppedClaim::new) {})
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Bare has no statement inboxInsert in /dev/outboxkit/jdbc/sql/");
  }

  @Test
  void each_vendor_family_claims_its_own_way_and_mariadb_keeps_the_mysql_ddl() {
    assertThat(new PostgresDialect().claims()).isInstanceOf(ReturningClaim.class);
    assertThat(new H2Dialect().claims()).isInstanceOf(SteppedClaim.class);
    assertThat(new MariaDbDialect().claims()).isInstanceOf(SteppedClaim.class);
    assertThat(new MariaDbDialect().schemaResource()).isEqualTo("mysql.sql");
    assertThat(new MariaDbDialect().inboxSchemaResource()).isEqualTo("inbox-mysql.sql");
  }

  /** The statement accessors: SqlDialect's public final no-argument String methods. */
  private static Set<String> statementMethods() {
    Set<String> names = new TreeSet<>();
    for (Method m : SqlDialect.class.getDeclaredMethods()) {
      if (m.getReturnType() == String.class
          && m.getParameterCount() == 0
          && Modifier.isPublic(m.getModifiers())
          && Modifier.isFinal(m.getModifiers())) {
        names.add(m.getName());
      }
    }
    assertThat(names).hasSizeGreaterThan(20);
    return names;
  }

  private static String invoke(Method m, SqlDialect dialect) throws Throwable {
    try {
      return (String) m.invoke(dialect);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
