package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.DatabaseTest;
import dev.outboxkit.jdbc.Inbox;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.jdbc.dialect.ClaimCapability;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every statement that returns rows returns exactly the columns its {@link Statement} declares, run
 * on the real database with each claim capability's statements: so an override (a vendor file or a
 * user's) cannot drop or rename a column the code reads. Each runs in a transaction that is rolled
 * back.
 */
@ParameterizedClass(name = "{0}", allowZeroInvocations = true)
@MethodSource("flavors")
class StatementColumnsContractTest extends DatabaseTest {

  @Test
  void each_statement_returns_the_columns_it_declares() throws SQLException {
    SqlDialect preset = dialect.preset();
    try (Connection c = ds.getConnection()) {
      OutboxSchema.createInbox(c);
    }
    OutboxSql outbox = OutboxSql.of(preset, TableName.of("outbox_event"));
    OutboxSql inbox = OutboxSql.of(preset, TableName.of(Inbox.DEFAULT_TABLE));
    OutboxSql versions = OutboxSql.of(preset, TableName.of(Inbox.DEFAULT_VERSION_TABLE));
    int checked = 0;
    for (Statement st : Statements.all()) {
      if (st.columns().isEmpty() || !preset.statement(st.name()).isPresent()) {
        continue;
      }
      OutboxSql sql = StatementSamples.table(st, outbox, inbox, versions);
      assertThat(columns(sql, st)).as("%s %s", preset.name(), st).isEqualTo(expected(st));
      checked++;
    }
    // Every capability's statements that this preset carries, e.g. the stepped claim's on
    // PostgreSQL and the conditional claim's everywhere.
    assertThat(checked).isGreaterThanOrEqualTo(12);
  }

  @Test
  void every_capability_this_database_runs_has_its_statements_in_the_preset() {
    SqlDialect preset = dialect.preset();
    for (ClaimCapability capability :
        List.of(ClaimCapability.SKIP_LOCKED, ClaimCapability.CONDITIONAL_UPDATE)) {
      assertThat(preset.toBuilder(preset.name() + ", " + capability).claim(capability).build())
          .isNotNull();
    }
  }

  private static Set<String> expected(Statement st) {
    Set<String> names = new TreeSet<>();
    st.columns().forEach(c -> names.add(c.toLowerCase(Locale.ROOT)));
    return names;
  }

  private Set<String> columns(OutboxSql sql, Statement st) throws SQLException {
    try (Connection c = transaction()) {
      try (Query q =
          st.listParam() != null
              ? Query.prepare(c, sql, st, 2)
              : st == Statements.RUN_SUCCESSORS
                  ? Query.union(c, sql, st, 1)
                  : Query.prepare(c, sql, st)) {
        StatementSamples.bind(q, st, 1);
        try (ResultSet rs = q.executeQuery()) {
          ResultSetMetaData md = rs.getMetaData();
          Set<String> names = new TreeSet<>();
          for (int i = 1; i <= md.getColumnCount(); i++) {
            names.add(md.getColumnLabel(i).toLowerCase(Locale.ROOT));
          }
          return names;
        }
      } finally {
        c.rollback();
      }
    }
  }
}
