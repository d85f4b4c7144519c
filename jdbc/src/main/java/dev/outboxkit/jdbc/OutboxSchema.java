package dev.outboxkit.jdbc;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.jdbc.dialect.Beta;
import dev.outboxkit.jdbc.dialect.DialectRegistry;
import dev.outboxkit.jdbc.dialect.ErrorCodes;
import dev.outboxkit.jdbc.dialect.SqlDialect;
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
import java.util.regex.Pattern;

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
  /** The version table's name in the shipped inbox DDL. */
  private static final String VERSION_PLACEHOLDER = Inbox.DEFAULT_TABLE + "_version";

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
    create(connection, table, DialectRegistry.detect(connection));
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
    create(connection, table, dialect.preset());
  }

  /**
   * Creates the named table with a dialect of your own (or a preset), if it does not exist. A DDL
   * statement that fails because its table or index exists (the dialect's {@link
   * ErrorCodes.Kind#ALREADY_EXISTS} codes) is skipped, so DDL without {@code IF NOT EXISTS} may run
   * again.
   *
   * @param connection a connection with DDL rights; not committed here
   * @param table {@code name} or {@code schema.name}, a plain SQL identifier
   * @param dialect the database's dialect
   * @throws OutboxConfigurationException if the dialect has no DDL
   * @throws SQLException if a statement fails
   */
  @Beta
  public static void create(Connection connection, String table, SqlDialect dialect)
      throws SQLException {
    run(connection, dialect, ddl(dialect, table));
  }

  private static void run(Connection connection, SqlDialect dialect, String script)
      throws SQLException {
    try (Statement s = connection.createStatement()) {
      for (String statement : statements(script)) {
        try {
          s.execute(statement);
        } catch (SQLException e) {
          if (!dialect.errors().is(ErrorCodes.Kind.ALREADY_EXISTS, e)) {
            throw e;
          }
        }
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
    return ddl(dialect.preset(), table);
  }

  /**
   * {@return the DDL of a dialect of your own (or a preset) for a table, as a script of {@code
   * ;}-terminated statements}
   *
   * @param dialect the database's dialect
   * @param table {@code name} or {@code schema.name}; index names derive from the table part
   * @throws OutboxConfigurationException if the dialect has no DDL
   */
  @Beta
  public static String ddl(SqlDialect dialect, String table) {
    String script =
        dialect
            .schema()
            .orElseThrow(
                () ->
                    new OutboxConfigurationException(
                        "dialect "
                            + dialect.name()
                            + " has no DDL: give it with SqlDialect.Builder.schema(...), or"
                            + " create the table yourself"));
    return rename(script, TableName.DEFAULT, TableName.of(table));
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
    SqlDialect dialect = DialectRegistry.detect(connection);
    if (Dialect.of(dialect) != Dialect.POSTGRESQL) {
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
    return rename(read("postgresql-notify.sql"), TableName.DEFAULT, TableName.of(table));
  }

  /**
   * Creates the consumer inbox table {@code outbox_inbox} and the version table of its ordering
   * guard, {@code outbox_inbox_version} (see {@link Inbox}), if missing.
   *
   * @param connection a connection with DDL rights to the consumer's database; not committed here
   * @throws SQLException if a statement fails
   */
  public static void createInbox(Connection connection) throws SQLException {
    createInbox(connection, Inbox.DEFAULT_TABLE, DialectRegistry.detect(connection));
  }

  /**
   * Creates a consumer inbox table with this name and dialect, and its version table ({@code
   * <table>_version}), if missing.
   *
   * @param connection a connection with DDL rights to the consumer's database; not committed here
   * @param table {@code name} or {@code schema.name}, a plain SQL identifier
   * @param dialect the database's dialect
   * @throws SQLException if a statement fails
   */
  public static void createInbox(Connection connection, String table, Dialect dialect)
      throws SQLException {
    createInbox(connection, table, dialect.preset());
  }

  /**
   * Creates a consumer inbox table and its version table ({@code <table>_version}) with a dialect
   * of your own (or a preset), if missing; skips statements as {@link #create(Connection, String,
   * SqlDialect)} does.
   *
   * @param connection a connection with DDL rights to the consumer's database; not committed here
   * @param table {@code name} or {@code schema.name}, a plain SQL identifier
   * @param dialect the database's dialect
   * @throws SQLException if a statement fails
   */
  @Beta
  public static void createInbox(Connection connection, String table, SqlDialect dialect)
      throws SQLException {
    run(connection, dialect, inboxDdl(dialect, table));
  }

  /**
   * Creates a consumer inbox table and a version table of another name ({@link
   * Inbox.Builder#versionTable}), if missing; skips statements as {@link #create(Connection,
   * String, SqlDialect)} does.
   *
   * @param connection a connection with DDL rights to the consumer's database; not committed here
   * @param table the inbox table: {@code name} or {@code schema.name}, a plain SQL identifier
   * @param versionTable the version table, likewise
   * @param dialect the database's dialect: a preset ({@link Dialect#preset()}) or your own
   * @throws SQLException if a statement fails
   */
  @Beta
  public static void createInbox(
      Connection connection, String table, String versionTable, SqlDialect dialect)
      throws SQLException {
    run(connection, dialect, inboxDdl(dialect, table, versionTable));
  }

  /**
   * {@return the consumer inbox DDL for a dialect and table, and for its version table ({@code
   * <table>_version}), for migration tools}
   *
   * @param dialect the database's dialect
   * @param table {@code name} or {@code schema.name}, a plain SQL identifier
   */
  public static String inboxDdl(Dialect dialect, String table) {
    return inboxDdl(dialect.preset(), table);
  }

  /**
   * {@return the consumer inbox DDL of a dialect of your own (or a preset), with the version table
   * named {@code <table>_version}, for migration tools}
   *
   * @param dialect the database's dialect
   * @param table {@code name} or {@code schema.name}, a plain SQL identifier
   * @throws OutboxConfigurationException if the dialect has no inbox DDL
   */
  @Beta
  public static String inboxDdl(SqlDialect dialect, String table) {
    return inboxDdl(dialect, table, Inbox.versionTableOf(TableName.of(table)).qualified());
  }

  /**
   * {@return the consumer inbox DDL of a dialect of your own (or a preset), with a version table of
   * another name ({@link Inbox.Builder#versionTable}), for migration tools}
   *
   * @param dialect the database's dialect: a preset ({@link Dialect#preset()}) or your own
   * @param table the inbox table: {@code name} or {@code schema.name}, a plain SQL identifier
   * @param versionTable the version table, likewise
   * @throws OutboxConfigurationException if the dialect has no inbox DDL, or a name is not a plain
   *     identifier
   */
  @Beta
  public static String inboxDdl(SqlDialect dialect, String table, String versionTable) {
    String script =
        dialect
            .inboxSchema()
            .orElseThrow(
                () ->
                    new OutboxConfigurationException(
                        "dialect "
                            + dialect.name()
                            + " has no inbox DDL: give it with"
                            + " SqlDialect.Builder.inboxSchema(...), or create the tables"
                            + " yourself"));
    return renameInbox(script, TableName.of(table), TableName.of(versionTable));
  }

  /**
   * The inbox DDL with its two tables renamed in one pass, so that neither renaming can reach into
   * the other's result (a version table named {@code outbox_inbox_x}, say).
   */
  private static String renameInbox(String script, TableName inbox, TableName version) {
    Matcher m =
        Pattern.compile("\\b(" + VERSION_PLACEHOLDER + "|" + Inbox.DEFAULT_TABLE + ")(?:(?=_)|\\b)")
            .matcher(script);
    StringBuffer out = new StringBuffer(script.length() + 64);
    while (m.find()) {
      TableName name = m.group(1).equals(VERSION_PLACEHOLDER) ? version : inbox;
      // Index and constraint names (<table>_*) take the bare name; table references take the
      // possibly schema-qualified one.
      boolean prefix = m.end() < script.length() && script.charAt(m.end()) == '_';
      m.appendReplacement(out, Matcher.quoteReplacement(prefix ? name.simple() : name.qualified()));
    }
    return m.appendTail(out).toString();
  }

  private static String read(String file) {
    String resource = "schema/" + file;
    try (InputStream in = OutboxSchema.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new OutboxConfigurationException("missing resource " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new OutboxConfigurationException("cannot read " + resource, e);
    }
  }

  private static String rename(String script, String placeholder, TableName name) {
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
