package dev.outboxkit.testkit;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** The plain statements tests run on their database, each on a connection of its own. */
public final class Sql {
  private Sql() {}

  /** Runs the statements in order, with auto-commit: each commits on its own. */
  public static void execute(DataSource dataSource, String... statements) throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      for (String statement : statements) {
        s.execute(statement);
      }
    }
  }

  /**
   * The first column of the query's first row as a long, e.g. a {@code COUNT(*)}; 0 for SQL NULL
   * (the {@code MAX} of no rows).
   */
  public static long queryLong(DataSource dataSource, String query) throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      if (!rs.next()) {
        throw new IllegalStateException("no row: " + query);
      }
      return rs.getLong(1);
    }
  }
}
