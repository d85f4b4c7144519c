package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.dialect.ClaimCapability;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SqlStatementsTest {
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
  void a_vendor_file_states_only_what_differs_from_common() {
    Map<String, String> common = SqlStatements.parse("common.sql", SqlStatements.commonText());
    for (String vendor :
        List.of(
            "postgresql.sql",
            "mysql.sql",
            "mariadb.sql",
            "h2.sql",
            "oracle.sql",
            "sqlserver.sql")) {
      SqlStatements.parse(vendor, SqlStatements.shippedText(vendor))
          .forEach(
              (name, sql) ->
                  assertThat(sql.replaceAll("\\s+", " "))
                      .as("%s repeats common.sql's %s", vendor, name)
                      .isNotEqualTo(common.getOrDefault(name, "").replaceAll("\\s+", " ")));
    }
  }

  @Test
  void the_clock_and_row_limit_placeholders_become_the_vendors_own() {
    OutboxSql postgres = OutboxSql.of(Dialect.POSTGRESQL.preset(), TableName.of("outbox_event"));
    assertThat(postgres.text(Statements.MARK_RETRY))
        .contains("available_at = now() + ? * INTERVAL '1 microsecond'");
    OutboxSql mysql = OutboxSql.of(Dialect.MYSQL.preset(), TableName.of("outbox_event"));
    assertThat(mysql.text(Statements.PURGE_RETAINED))
        .contains("published_at < TIMESTAMPADD(MICROSECOND, -?, UTC_TIMESTAMP(6))");
    assertThat(mysql.text(Statements.RETENTION_WINDOW)).endsWith("ORDER BY seq\n LIMIT ?");
  }

  @Test
  void every_statement_of_every_preset_renders_with_no_placeholder_left() {
    for (Dialect preset : Dialect.values()) {
      OutboxSql sql = OutboxSql.of(preset.preset(), TableName.of("app.outbox_event"));
      for (Statement st : Statements.ALL.values()) {
        if (!sql.has(st)) {
          assertThat(st.requiredFor(preset.preset().claimCapability()))
              .as("%s lacks %s", preset, st)
              .isFalse();
          continue;
        }
        NamedSql.Rendered r = st.listParam() == null ? sql.rendered(st) : sql.rendered(st, 2);
        assertThat(r.sql).as("%s %s", preset, st).doesNotContain("{", "}", ":");
        assertThat(r.sql.chars().filter(ch -> ch == '?').count())
            .as("%s %s", preset, st)
            .isEqualTo(r.parameterCount);
      }
    }
    assertThat(
            OutboxSql.of(Dialect.POSTGRESQL.preset(), TableName.of("outbox_event"))
                .text(Statements.CLAIM_UNORDERED))
        .contains("RETURNING o.seq, o.id, o.aggregate_type, o.aggregate_id, o.event_type,")
        .contains("o.attempts, o.uncertain_sends, (o.expires_at <= now()) AS expired");
    assertThat(
            OutboxSql.of(Dialect.H2.preset(), TableName.of("outbox_event")).text(Statements.INSERT))
        .startsWith("INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type,")
        .endsWith(
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
                + " DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP))");
  }

  @Test
  void named_parameters_bind_wherever_the_text_puts_them() {
    NamedSql.Rendered top =
        NamedSql.parse("SELECT TOP (:limit) seq FROM t WHERE seq > :after AND x::text = ':no'")
            .render(null, 0);
    assertThat(top.sql).isEqualTo("SELECT TOP (?) seq FROM t WHERE seq > ? AND x::text = ':no'");
    assertThat(top.positions("limit")).containsExactly(1);
    assertThat(top.positions("after")).containsExactly(2);

    NamedSql.Rendered list =
        NamedSql.parse("UPDATE t SET o = :owner WHERE seq IN (:seqs) AND o2 = :owner")
            .render("seqs", 3);
    assertThat(list.sql).isEqualTo("UPDATE t SET o = ? WHERE seq IN (?, ?, ?) AND o2 = ?");
    assertThat(list.positions("owner")).containsExactly(1, 5);
    assertThat(list.positions("seqs")).containsExactly(2);
  }

  @Test
  void an_override_that_takes_other_parameters_is_refused_when_built() {
    SqlDialect.Builder h2 = Dialect.H2.preset().toBuilder("Mine");

    assertThatThrownBy(
            () ->
                h2.statement(
                        "markDead",
                        "UPDATE {table} SET status = 'DEAD', last_error = :error,"
                            + " uncertain_sends = uncertain_sends + :uncertain"
                            + " WHERE seq = :seq AND status = 'IN_FLIGHT'")
                    .build())
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessage(
            "dialect Mine: statement markDead must take the parameters :error, :uncertain, :seq,"
                + " :owner;"
                + " it lacks :owner (parameters are bound by name, so their order in the text is"
                + " free)");
    assertThatThrownBy(
            () ->
                Dialect.H2.preset().toBuilder("Mine")
                    .statement("countStatus", "SELECT COUNT(*) FROM {table} WHERE status = :state")
                    .build())
        .hasMessageContaining("statement countStatus must take the parameters :status;")
        .hasMessageContaining("it lacks :status; it uses :state, which OutboxKit does not bind");
    assertThatThrownBy(
            () ->
                Dialect.H2.preset().toBuilder("Mine")
                    .statement("countStatus", "SELECT COUNT(*) FROM {table} WHERE status = ?")
                    .build())
        .hasMessageContaining("statement countStatus has a plain '?' at offset 44: name each");
  }

  @Test
  void a_dialect_missing_a_statement_its_claim_runs_is_refused_naming_it() {
    assertThatThrownBy(
            () -> Dialect.H2.preset().toBuilder("Mine").claim(ClaimCapability.RETURNING).build())
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessage(
            "dialect Mine: statement claimUnordered is missing (claim capability RETURNING runs"
                + " it): add it with statement(\"claimUnordered\", sql) taking :owner, :lease,"
                + " :limit (optionally :floor), or start from a preset with toBuilder");
    // common.sql alone has no inbox insert: every database ignores a duplicate its own way.
    assertThatThrownBy(
            () ->
                SqlDialect.builder("Bare")
                    .clock("NOW", "NOW + {micros}", "NOW - {micros}")
                    .rowLimit("LIMIT {n}")
                    .claim(ClaimCapability.CONDITIONAL_UPDATE)
                    .build())
        .hasMessageStartingWith("dialect Bare: statement inboxInsert is missing: add it");
    // Nor an insert of the ordering guard's version row, for the same reason.
    assertThatThrownBy(
            () ->
                Dialect.H2.preset().toBuilder("No guard")
                    .withoutStatement("inboxVersionCreate")
                    .build())
        .hasMessage(
            "dialect No guard: statement inboxVersionCreate is missing: add it with"
                + " statement(\"inboxVersionCreate\", sql) taking :consumer, :aggregate_type,"
                + " :aggregate_id, or start from a preset with toBuilder");
  }

  @Test
  void a_select_of_expressions_reads_the_dialects_one_row_table_if_it_has_one() {
    TableName t = TableName.of("outbox_event");
    assertThat(OutboxSql.of(Dialect.ORACLE.preset(), t).text(Statements.DRAIN_LEFT))
        .endsWith(") AS due_not_behind\n  FROM dual");
    assertThat(OutboxSql.of(Dialect.POSTGRESQL.preset(), t).text(Statements.DRAIN_LEFT))
        .endsWith(") AS due_not_behind");
    SqlDialect derbyLike = Dialect.H2.preset().toBuilder("Mine").oneRowTable("ONE_ROW").build();
    assertThat(OutboxSql.of(derbyLike, t).text(Statements.OLDEST_PENDING))
        .endsWith("AS db_now\n  FROM ONE_ROW");
  }

  @Test
  void unknown_statements_placeholders_and_an_unset_clock_are_refused() {
    assertThatThrownBy(
            () -> Dialect.H2.preset().toBuilder("Mine").statement("claimAll", "SELECT 1").build())
        .hasMessageStartingWith(
            "dialect Mine: statement claimAll is not a statement OutboxKit runs; the statements"
                + " are [beforeClaim, ");
    assertThatThrownBy(
            () ->
                Dialect.H2.preset().toBuilder("Mine")
                    .statement("countByStatus", "SELECT status, COUNT(*) AS n FROM {tabel}")
                    .build())
        .hasMessageContaining("statement countByStatus has an unknown placeholder {tabel}");
    assertThatThrownBy(() -> SqlDialect.builder("Bare").build())
        .hasMessage("dialect Bare has no clock: call clock(now, nowPlusMicros, nowMinusMicros)");
    assertThatThrownBy(() -> SqlDialect.builder("Bare").rowLimit("LIMIT 10"))
        .hasMessage("dialect Bare: rowLimit must contain {n}, was LIMIT 10");
  }

  @Test
  void claims_are_chosen_by_capability_and_mariadb_keeps_the_mysql_ddl() {
    assertThat(CompiledDialect.of(Dialect.POSTGRESQL.preset()).claims())
        .isInstanceOf(ReturningClaim.class);
    assertThat(CompiledDialect.of(Dialect.H2.preset()).claims()).isInstanceOf(SteppedClaim.class);
    assertThat(
            CompiledDialect.of(
                    Dialect.POSTGRESQL.preset().toBuilder("PostgreSQL, conditional")
                        .claim(ClaimCapability.CONDITIONAL_UPDATE)
                        .build())
                .claims())
        .isInstanceOf(ConditionalClaim.class);
    assertThat(Dialect.MARIADB.preset().schema()).isEqualTo(Dialect.MYSQL.preset().schema());
    assertThat(Dialect.MARIADB.preset().inboxSchema())
        .isEqualTo(Dialect.MYSQL.preset().inboxSchema());
  }
}
