package dev.outboxkit.samples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.Sql;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.TestDatabases;
import java.io.IOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every {@code sql} block of the SQL runbook ({@code docs/runbook.md}) runs, as written, on the
 * databases its first line names ({@code -- PostgreSQL}, {@code -- MySQL and MariaDB}, or both),
 * against an outbox table made by {@link OutboxSchema} and holding events in the states the
 * statements look for. A renamed column or a statement a server refuses fails here. The runbook's
 * shell loops for MySQL and MariaDB are not run; the statement inside each is the same as one of
 * the runbook's checked ones but for its {@code LIMIT}.
 */
class DocsSqlTest {
  private static final Pattern SQL_BLOCK =
      Pattern.compile("^```sql\\n--\\s*([^\\n]*)\\n(.*?)^```", Pattern.DOTALL | Pattern.MULTILINE);

  @ParameterizedTest
  @EnumSource(
      value = Flavor.class,
      names = {"POSTGRES", "MARIADB"})
  void every_sql_block_of_the_runbook_runs_on_the_databases_it_names(Flavor flavor)
      throws IOException, SQLException {
    String runbook = Files.readString(Docs.ROOT.resolve("docs/runbook.md"));
    List<String> blocks = new ArrayList<>();
    Matcher m = SQL_BLOCK.matcher(runbook);
    while (m.find()) {
      boolean forPostgres = m.group(1).contains("PostgreSQL");
      boolean forMySql = m.group(1).contains("MySQL") || m.group(1).contains("MariaDB");
      if (flavor == Flavor.POSTGRES ? forPostgres : forMySql) {
        blocks.add(m.group(2).strip().replaceFirst(";$", ""));
      }
    }
    assertThat(blocks).as("runbook blocks for %s", flavor).hasSizeGreaterThan(5);

    try (TestDatabase db = TestDatabases.create(flavor, "docssql")) {
      try (Connection c = db.connect()) {
        OutboxSchema.create(c);
      }
      appendEventsInEveryState(db);
      List<String> failed = new ArrayList<>();
      for (String block : blocks) {
        try (Connection c = db.connect();
            Statement s = c.createStatement()) {
          s.execute(block);
        } catch (SQLException e) {
          failed.add(e.getMessage() + "\n  in:\n" + block);
        }
      }
      assertThat(failed).as("runbook statements %s refused", flavor).isEmpty();
      // The replay block ran (PostgreSQL's): the DEAD event of the filter is PENDING again.
      if (flavor == Flavor.POSTGRES) {
        assertThat(
                Sql.queryLong(
                    db.dataSource(),
                    "SELECT COUNT(*) FROM outbox_event WHERE status = 'DEAD'"
                        + " AND destination = 'legacy'"))
            .isZero();
      }
    }
  }

  /** A PENDING event, a DEAD one matching the runbook's filter, an IN_FLIGHT one. */
  private static void appendEventsInEveryState(TestDatabase db) throws SQLException {
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      for (int i = 1; i <= 3; i++) {
        Outbox.append(
            c,
            OutboxEvent.builder("Order", "o-" + i, "OrderPlaced")
                .destination("legacy")
                .payload("{\"n\":" + i + "}")
                .build());
      }
      c.commit();
    }
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.executeUpdate(
          "UPDATE outbox_event SET status = 'DEAD', attempts = 5,"
              + " last_error = 'HTTP 500 from https://legacy.example.com/hooks/42'"
              + " WHERE aggregate_id = 'o-1'");
      s.executeUpdate(
          "UPDATE outbox_event SET status = 'IN_FLIGHT', lease_owner = 'orders@0a1b2c3d/7'"
              + ", lease_until = available_at WHERE aggregate_id = 'o-2'");
    }
  }
}
