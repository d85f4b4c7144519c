package dev.outboxkit.jdbc;

import dev.outboxkit.jdbc.internal.CompiledDialect;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.FreshDatabase;
import dev.outboxkit.testkit.Sql;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.TestFlavors;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;

/**
 * Base of the contract suites: one fresh database per test class (per run of a suite parameterized
 * by flavour) on a real server of the flavour, with the outbox table created and emptied before
 * each test. Public for the tests of the SQL layer in {@code internal}; test code, never exported.
 */
@SuppressWarnings("exports")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class DatabaseTest {
  @RegisterExtension
  final FreshDatabase database =
      FreshDatabase.of(this::flavor)
          .setUp(this::createSchema)
          // TRUNCATE, not DELETE: deleted rows linger in InnoDB's indexes (and PostgreSQL's) until
          // purge or vacuum catches up, and would slow the next test's claims by orders of
          // magnitude.
          .beforeEachTest("TRUNCATE TABLE outbox_event");

  /** Set in each run of a suite parameterized by flavour, see {@link #flavors()}. */
  @Parameter private Flavor flavor;

  /** The digits 0..9 as column {@code d}; MySQL has no sequence engine. */
  protected static final String DIGITS =
      "(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4"
          + " UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8"
          + " UNION ALL SELECT 9)";

  protected TestDatabase db;
  protected DataSource ds;
  protected Dialect dialect;

  protected DatabaseTest() {}

  /** What a suite parameterized by flavour runs on: {@code @MethodSource("flavors")}. */
  static List<Flavor> flavors() {
    return TestFlavors.all();
  }

  /** The database product this test runs on: the suite's parameter, unless a subclass names it. */
  protected Flavor flavor() {
    return flavor;
  }

  private void createSchema(TestDatabase fresh) throws SQLException {
    db = fresh;
    ds = fresh.dataSource();
    try (Connection c = ds.getConnection()) {
      dialect = Dialect.detect(c);
      OutboxSchema.create(c);
    }
  }

  protected CompiledDialect sql() {
    return CompiledDialect.of(dialect.preset());
  }

  protected void execute(String statement) throws SQLException {
    Sql.execute(ds, statement);
  }

  protected long count(String query) throws SQLException {
    return Sql.queryLong(ds, query);
  }

  protected long rows() throws SQLException {
    return count("SELECT COUNT(*) FROM outbox_event");
  }

  /** A connection in a transaction (auto-commit off); the caller commits or rolls back. */
  protected Connection transaction() throws SQLException {
    Connection c = ds.getConnection();
    c.setAutoCommit(false);
    return c;
  }
}
