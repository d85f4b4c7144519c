package dev.outboxkit.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/**
 * The console's audit table, {@code outbox_console_audit}: its DDL for PostgreSQL, H2, MySQL and
 * MariaDB ships in this jar ({@code dev/outboxkit/console/schema/}), for a migration tool or for
 * {@link #create}. On other databases, create a table with the same columns by hand.
 */
public final class ConsoleSchema {
  /** The audit table's default name. */
  public static final String DEFAULT_AUDIT_TABLE = "outbox_console_audit";

  private ConsoleSchema() {}

  /**
   * Creates the audit table and its index if they do not exist, in the connection's current
   * transaction mode. Idempotent.
   *
   * @param connection a connection to the database of the outbox table
   * @throws SQLException if the database refuses, or is not one the DDL is shipped for
   */
  public static void create(Connection connection) throws SQLException {
    try (Statement s = connection.createStatement()) {
      // The DDL has no string literals, so every "--" starts a comment.
      for (String statement : ddl(connection).replaceAll("--[^\n]*", "").split(";")) {
        String sql = statement.trim();
        if (!sql.isEmpty()) {
          s.execute(sql);
        }
      }
    }
  }

  /** {@return the DDL for the connection's database} */
  static String ddl(Connection connection) throws SQLException {
    String product = connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
    String file;
    if (product.contains("postgres") || product.equals("h2")) {
      file = "postgresql.sql";
    } else if (product.contains("mysql") || product.contains("mariadb")) {
      file = "mysql.sql";
    } else {
      throw new SQLException(
          "no console audit DDL ships for "
              + product
              + ": create "
              + DEFAULT_AUDIT_TABLE
              + " by hand with the columns of dev/outboxkit/console/schema/postgresql.sql in this"
              + " jar");
    }
    try (InputStream in = ConsoleSchema.class.getResourceAsStream("schema/" + file)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
