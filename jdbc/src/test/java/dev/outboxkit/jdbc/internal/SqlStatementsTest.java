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
  private static final Set<String> ONE_STATEMENT_CLAIMS = Set.of("claimUnordered", "claimOrdered");
  private static final Set<String> THREE_STEP_CLAIMS =
      Set.of("lockUnordered", "orderedCandidates", "orderedCandidatesInWindow", "lockCandidates");
  private static final Set<String> OPTIONAL =
      Set.of(
          "claimOrderedSparse",
          "beforeRelayTransaction",
          "beforeClaim",
          "boundTransaction",
          "unboundTransaction");

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
    Map<String, String> common = SqlStatements.load("common.sql");
    Map<String, String> mysql = SqlStatements.load("common.sql", "mysql.sql");

    assertThat(mysql.get("listDead")).contains("IGNORE INDEX").isNotEqualTo(common.get("listDead"));
    assertThat(mysql.get("countStatus")).isEqualTo(common.get("countStatus"));
  }

  @Test
  void a_vendor_file_states_only_what_differs_from_common() {
    Map<String, String> common = SqlStatements.load("common.sql");
    for (String vendor : new String[] {"postgresql.sql", "mysql.sql", "mariadb.sql", "h2.sql"}) {
      SqlStatements.load(vendor)
          .forEach(
              (name, sql) ->
                  assertThat(sql)
                      .as("%s repeats common.sql's %s", vendor, name)
                      .isNotEqualTo(common.get(name)));
    }
  }

  @Test
  void every_dialect_names_only_known_statements_and_has_all_its_claim_strategy_needs()
      throws Throwable {
    Set<String> known = statementMethods();
    for (SqlDialect dialect :
        new SqlDialect[] {
          new PostgresDialect(), new MySqlDialect(), new MariaDbDialect(), new H2Dialect()
        }) {
      assertThat(known).as(dialect.name()).containsAll(dialect.statementNames());
      Set<String> notUsed =
          dialect.claimsInOneStatement() ? THREE_STEP_CLAIMS : ONE_STATEMENT_CLAIMS;
      for (String name : known) {
        Method m = SqlDialect.class.getMethod(name);
        if (notUsed.contains(name)) {
          assertThatThrownBy(() -> invoke(m, dialect))
              .as("%s %s", dialect.name(), name)
              .isInstanceOf(UnsupportedOperationException.class)
              .hasMessage(dialect.name() + " has no statement " + name);
        } else if (!OPTIONAL.contains(name)) {
          assertThat(invoke(m, dialect)).as("%s %s", dialect.name(), name).isNotBlank();
        }
      }
    }
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
