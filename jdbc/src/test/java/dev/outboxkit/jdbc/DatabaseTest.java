package dev.outboxkit.jdbc;

import dev.outboxkit.jdbc.internal.Dialects;
import dev.outboxkit.jdbc.internal.SqlDialect;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.opentest4j.TestAbortedException;

/**
 * Base of the contract suites: one fresh database per test class on a real server of the subclass's
 * flavour, with the outbox table created and emptied before each test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DatabaseTest {
  protected TestDatabase db;
  protected DataSource ds;
  protected Dialect dialect;

  /** The database product this subclass runs on. */
  protected abstract Flavor flavor();

  private String unavailable;

  @BeforeAll
  void createDatabase() throws SQLException {
    try {
      db = TestDatabases.create(flavor(), getClass().getSimpleName());
    } catch (TestAbortedException e) {
      // Aborting here would make Surefire report "0 tests"; abort each test instead, so the
      // report says how many were skipped and why.
      unavailable = e.getMessage();
      return;
    }
    ds = db.dataSource();
    try (Connection c = ds.getConnection()) {
      dialect = Dialect.detect(c);
      OutboxSchema.create(c);
    }
  }

  @AfterAll
  void dropDatabase() {
    if (db != null) {
      db.close();
    }
  }

  @BeforeEach
  void emptyTable() throws SQLException {
    Assumptions.assumeTrue(unavailable == null, () -> unavailable);
    // TRUNCATE, not DELETE: deleted rows linger in InnoDB's indexes (and PostgreSQL's) until
    // purge or vacuum catches up, and would slow the next test's claims by orders of magnitude.
    execute("TRUNCATE TABLE outbox_event");
  }

  protected SqlDialect sql() {
    return Dialects.sql(dialect);
  }

  protected void execute(String statement) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }

  protected long count(String query) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      rs.next();
      return rs.getLong(1);
    }
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
