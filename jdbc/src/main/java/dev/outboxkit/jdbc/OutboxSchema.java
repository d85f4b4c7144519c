package dev.outboxkit.jdbc;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.jdbc.internal.Dialects;
import dev.outboxkit.jdbc.internal.TableName;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;

/**
 * Creates the outbox table and its indexes. The DDL ships as one resource per dialect under {@code
 * dev/outboxkit/jdbc/schema/} ({@code postgresql.sql}, {@code mysql.sql} for MySQL and MariaDB,
 * {@code h2.sql}); copy it into your migrations, or call {@link #create} at start-up. Every
 * statement is {@code IF NOT EXISTS}, so running it again is harmless.
 *
 * <p>The statements run on the given connection and are not committed here. PostgreSQL and H2 run
 * DDL inside the caller's transaction; MySQL and MariaDB commit each DDL statement implicitly.
 */
public final class OutboxSchema {
  private OutboxSchema() {}

  /**
   * Creates {@code outbox_event} for the connection's detected dialect, if it does not exist.
   *
   * @param connection a connection with DDL rights; not committed here
   * @throws SQLException if a statement fails
   */
  public static void create(Connection connection) throws SQLException {
    create(connection, TableName.DEFAULT);
  }

  /**
   * Creates the named table for the connection's detected dialect, if it does not exist.
   *
   * @param connection a connection with DDL rights; not committed here
   * @param table {@code name} or {@code schema.name}, a plain SQL identifier
   * @throws OutboxConfigurationException if the name is not one
   * @throws SQLException if a statement fails
   */
  public static void create(Connection connection, String table) throws SQLException {
    create(connection, table, Dialect.detect(connection));
  }

  /**
   * Creates the named table with an explicit dialect, if it does not exist.
   *
   * @param connection a connection with DDL rights; not committed here
   * @param table {@code name} or {@code schema.name}, a plain SQL identifier
   * @param dialect the database's dialect
   * @throws SQLException if a statement fails
   */
  public static void create(Connection connection, String table, Dialect dialect)
      throws SQLException {
    try (Statement s = connection.createStatement()) {
      for (String statement : statements(ddl(dialect, table))) {
        s.execute(statement);
      }
    }
  }

  /**
   * {@return the DDL for a dialect and table, as a script of {@code ;}-terminated statements} For
   * migration tools (Flyway, Liquibase) that should own the schema.
   *
   * @param dialect the database's dialect
   * @param table {@code name} or {@code schema.name}; index names derive from the table part
   */
  public static String ddl(Dialect dialect, String table) {
    return script(Dialects.sql(dialect).schemaResource(), TableName.DEFAULT, TableName.of(table));
  }

  /**
   * PostgreSQL only: installs the trigger that notifies channel {@code <table>} after every
   * appending statement, for relays built with {@code listenForNotifications(true)}. Off unless
   * installed, because notifying transactions commit one at a time (see the benchmarks).
   *
   * @param connection a connection to PostgreSQL with rights to create functions and triggers
   * @param table the outbox table the trigger watches
   * @throws OutboxConfigurationException on any other database
   * @throws SQLException if a statement fails
   */
  public static void createNotifyTrigger(Connection connection, String table) throws SQLException {
    Dialect dialect = Dialect.detect(connection);
    if (dialect != Dialect.POSTGRESQL) {
      throw new OutboxConfigurationException(
          "notification wake-ups need PostgreSQL's LISTEN/NOTIFY; this is " + dialect);
    }
    try (Statement s = connection.createStatement()) {
      for (String statement : statements(notifyDdl(table))) {
        s.execute(statement);
      }
    }
  }

  /**
   * {@return the PostgreSQL notification trigger's DDL for a table (see {@link
   * #createNotifyTrigger})}
   *
   * @param table the outbox table the trigger watches
   */
  public static String notifyDdl(String table) {
    return script("postgresql-notify.sql", TableName.DEFAULT, TableName.of(table));
  }

  /**
   * Creates the consumer inbox table {@code outbox_inbox} (see {@link Inbox}), if missing.
   *
   * @param connection a connection with DDL rights to the consumer's database; not committed here
   * @throws SQLException if a statement fails
   */
  public static void createInbox(Connection connection) throws SQLException {
    createInbox(connection, Inbox.DEFAULT_TABLE, Dialect.detect(connection));
  }

  /**
   * Creates a consumer inbox table with this name and dialect, if missing.
   *
   * @param connection a connection with DDL rights to the consumer's database; not committed here
   * @param table {@code name} or {@code schema.name}, a plain SQL identifier
   * @param dialect the database's dialect
   * @throws SQLException if a statement fails
   */
  public static void createInbox(Connection connection, String table, Dialect dialect)
      throws SQLException {
    try (Statement s = connection.createStatement()) {
      for (String statement : statements(inboxDdl(dialect, table))) {
        s.execute(statement);
      }
    }
  }

  /**
   * {@return the consumer inbox DDL for a dialect and table, for migration tools}
   *
   * @param dialect the database's dialect
   * @param table {@code name} or {@code schema.name}, a plain SQL identifier
   */
  public static String inboxDdl(Dialect dialect, String table) {
    return script(
        Dialects.sql(dialect).inboxSchemaResource(), Inbox.DEFAULT_TABLE, TableName.of(table));
  }

  private static String script(String file, String placeholder, TableName name) {
    String resource = "schema/" + file;
    String script;
    try (InputStream in = OutboxSchema.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new OutboxConfigurationException("missing resource " + resource);
      }
      script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new OutboxConfigurationException("cannot read " + resource, e);
    }
    // Index and constraint names (outbox_event_*) take the bare table name; table references
    // take the possibly schema-qualified one.
    return script
        .replaceAll("\\b" + placeholder + "(?=_)", Matcher.quoteReplacement(name.simple()))
        .replaceAll("\\b" + placeholder + "\\b", Matcher.quoteReplacement(name.qualified()));
  }

  /**
   * Splits a script into statements, dropping comments; a {@code $$}-quoted function body stays
   * whole.
   */
  static List<String> statements(String script) {
    List<String> statements = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    boolean inBody = false;
    for (String line : script.split("\n")) {
      String code = !inBody && line.contains("--") ? line.substring(0, line.indexOf("--")) : line;
      if (code.isBlank()) {
        continue;
      }
      current.append(code).append('\n');
      if ((code.split("\\$\\$", -1).length - 1) % 2 == 1) {
        inBody = !inBody;
      }
      if (!inBody && code.stripTrailing().endsWith(";")) {
        String statement = current.toString().strip();
        statements.add(statement.substring(0, statement.length() - 1));
        current.setLength(0);
      }
    }
    if (!current.toString().isBlank()) {
      statements.add(current.toString().strip());
    }
    return statements;
  }
}
