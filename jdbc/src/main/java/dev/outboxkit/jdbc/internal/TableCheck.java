package dev.outboxkit.jdbc.internal;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.jdbc.OutboxSchemaException;
import dev.outboxkit.jdbc.dialect.DialectRegistry;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The one home of "is this the table OutboxKit needs, on the database it was told": the relay's
 * start-up check ({@link #verify}) and the explanation of a statement that failed because it is not
 * ({@link #explain}). The expected columns are read from the shipped DDL of the dialect, so a
 * column added to the DDL is checked, and its {@code ALTER TABLE} given, without a second list.
 */
final class TableCheck {
  // PostgreSQL's undefined_table / undefined_column; the SQL standard's base table and column not
  // found, which MySQL, MariaDB and H2 use; Derby's.
  private static final Set<String> NO_TABLE = Set.of("42P01", "42S02", "42X05");
  private static final Set<String> NO_COLUMN = Set.of("42703", "42S22", "42X04");

  // A column line of the shipped CREATE TABLE: indented, a lower-case name, then its type.
  private static final Pattern COLUMN =
      Pattern.compile("^\\s+([a-z_]+)\\s+([A-Z].*?),?\\s*(--.*)?$");

  // The shipped DDL's named CHECK on the status column, which lists every state.
  private static final Pattern STATUS_CHECK =
      Pattern.compile("CONSTRAINT\\s+(\\S+)\\s+CHECK\\s*\\((status\\s+IN\\s*\\([^)]*\\))\\)");

  // An index declared inside the shipped CREATE TABLE (MySQL's KEY), and its columns.
  private static final Pattern INDEX_IN_TABLE =
      Pattern.compile("^\\s+((?:UNIQUE )?KEY\\s+\\S+\\s+\\((.*)\\)),?\\s*$");

  private TableCheck() {}

  /** Whether the failure says a table or column is missing. */
  static boolean missingTableOrColumn(SQLException e) {
    return NO_TABLE.contains(e.getSQLState()) || NO_COLUMN.contains(e.getSQLState());
  }

  /**
   * Whether a failure is worth a look at the table and the dialect on a connection borrowed for it:
   * one the database answered (not a connection failure, SQL state class 08, nor a pool's refusal
   * without a state, which a second borrow would only repeat, waiting as long again), and either a
   * refused statement (class 42) or any answer when a dialect was named (a vendor's statement fails
   * on another database in any state, H2's 90022 for one).
   */
  public static boolean worthExplaining(SQLException e, SqlDialect named) {
    String state = e.getSQLState();
    if (state == null || state.startsWith("08")) {
      return false;
    }
    return named != null || state.startsWith("42");
  }

  /**
   * {@link #verify(Connection, SqlDialect, TableName)} on a connection borrowed for it, within the
   * network timeout of the relay's time bound (a database that stopped answering fails it, it does
   * not hang it), with no vendor statement run before it: the dialect may be the wrong one.
   */
  public static void verify(DataSource ds, TimeBound bound, SqlDialect named, TableName table)
      throws SQLException {
    Transactions.inTransaction(
        ds,
        bound.networkOnly(),
        c -> {
          verify(c, named, table);
          return null;
        });
  }

  /**
   * Checks, on a connection of the relay's own, that the named dialect (if any) is the database's
   * and that the table exists with every column of the shipped DDL.
   *
   * @param named the dialect the user named, or null when it is detected
   * @throws OutboxConfigurationException if the named dialect is not the database's
   * @throws OutboxSchemaException if the table or some of its columns are missing, with the DDL or
   *     {@code ALTER TABLE} statements to run
   * @throws SQLException if the database could not be asked
   */
  public static void verify(Connection c, SqlDialect named, TableName table) throws SQLException {
    checkNamed(c, named, table);
    SqlDialect actual = named != null ? named : DialectRegistry.detect(c);
    Map<String, String> expected = columns(actual, table);
    Set<String> present = new HashSet<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT * FROM " + table.qualified() + " WHERE 1 = 0")) {
      ResultSetMetaData md = rs.getMetaData();
      for (int i = 1; i <= md.getColumnCount(); i++) {
        present.add(md.getColumnLabel(i).toLowerCase(Locale.ROOT));
      }
    } catch (SQLException e) {
      if (NO_TABLE.contains(e.getSQLState())) {
        throw new OutboxSchemaException(
            table.qualified(), List.of(), missingTable(actual, table), e);
      }
      throw e;
    }
    List<String> missing = new ArrayList<>();
    StringBuilder alters = new StringBuilder();
    for (Map.Entry<String, String> column : expected.entrySet()) {
      if (!present.contains(column.getKey())) {
        missing.add(column.getKey());
        alters
            .append("\n  ALTER TABLE ")
            .append(table.qualified())
            .append(" ADD ")
            .append(column.getKey())
            .append(' ')
            .append(column.getValue())
            .append(';');
      }
    }
    if (!missing.isEmpty()) {
      alters.append(indexesFor(actual, table, missing));
      alters.append(statusCheckRefresh(actual, table));
      throw new OutboxSchemaException(
          table.qualified(),
          missing,
          "table "
              + table.qualified()
              + " lacks the column(s) "
              + missing
              + " that this version of OutboxKit needs (it was probably made by an earlier"
              + " version); run:"
              + alters,
          null);
    }
  }

  /**
   * A clearer failure for a statement on the table that failed because the table or a column is
   * missing, or because the named dialect is not the database's; the failure itself otherwise. It
   * reads only the connection's metadata, which drivers answer without a statement, so it works on
   * a caller's connection whose transaction the failure aborted.
   *
   * @param named the dialect the user named, or null when it is detected
   */
  public static SQLException explain(
      SQLException e, Connection c, SqlDialect named, TableName table) {
    return explain(e, c, named, table, false);
  }

  /**
   * As {@link #explain(SQLException, Connection, SqlDialect, TableName)}, for a statement on an
   * inbox table: a missing one names {@code OutboxSchema.createInbox}.
   */
  public static SQLException explainInbox(
      SQLException e, Connection c, SqlDialect named, TableName table) {
    return explain(e, c, named, table, true);
  }

  /**
   * As {@link #explain(SQLException, Connection, SqlDialect, TableName)}, for a statement of the
   * inbox's ordering guard on its version table: a missing one names the DDL that makes it.
   *
   * @param inbox the inbox table the version table belongs to
   */
  public static SQLException explainInboxVersion(
      SQLException e, Connection c, SqlDialect named, TableName inbox, TableName versionTable) {
    return explain(e, c, named, versionTable, inbox);
  }

  private static SQLException explain(
      SQLException e, Connection c, SqlDialect named, TableName table, boolean inbox) {
    return explain(e, c, named, table, inbox ? table : null);
  }

  /**
   * @param inbox null for the outbox table; the inbox table for the inbox table itself or, when
   *     {@code table} is another, for its version table
   */
  private static SQLException explain(
      SQLException e, Connection c, SqlDialect named, TableName table, TableName inbox) {
    String why = null;
    try {
      try {
        checkNamed(c, named, table);
      } catch (OutboxConfigurationException wrong) {
        why = wrong.getMessage();
      }
      if (why == null && NO_TABLE.contains(e.getSQLState())) {
        SqlDialect d = named != null ? named : DialectRegistry.detect(c);
        why =
            inbox == null
                ? missingTable(d, table)
                : inbox == table ? missingInbox(d, table) : missingVersionTable(d, inbox, table);
      }
    } catch (SQLException | RuntimeException ignored) {
      // The metadata could not be had (a closed connection, an unsupported database): the
      // failure as the driver gave it is all there is to say.
    }
    if (why == null && inbox == null && NO_COLUMN.contains(e.getSQLState())) {
      why =
          "table "
              + table.qualified()
              + " lacks a column OutboxKit needs (it was probably made by an earlier version):"
              + " a relay's start-up check names the missing columns and the ALTER TABLE"
              + " statements to run";
    }
    if (why == null) {
      return e;
    }
    return new SQLException(
        why + " [" + e.getMessage() + "]", e.getSQLState(), e.getErrorCode(), e);
  }

  /**
   * Refuses a named preset that is not the database's. A dialect of the user's own is taken at its
   * word: only the dialect contract kit can prove it fits.
   */
  private static void checkNamed(Connection c, SqlDialect named, TableName table)
      throws SQLException {
    Dialect preset = named == null ? null : Dialect.of(named);
    if (preset == null) {
      return;
    }
    Dialect actual = Dialect.detect(c.getMetaData());
    if (actual != preset) {
      throw new OutboxConfigurationException(
          "dialect "
              + preset
              + " was named for table "
              + table.qualified()
              + ", but the database is "
              + c.getMetaData().getDatabaseProductName()
              + " "
              + c.getMetaData().getDatabaseProductVersion()
              + (actual == null
                  ? ": name its own dialect"
                  : ": name Dialect."
                      + actual
                      + ", or leave dialect(...) out so that it is"
                      + " detected"));
    }
  }

  /** How the messages name a dialect in code: a preset by its constant, a user's by "dialect". */
  private static String inCode(SqlDialect dialect) {
    Dialect preset = Dialect.of(dialect);
    return preset == null ? "yourDialect" : "Dialect." + preset;
  }

  private static String missingTable(SqlDialect dialect, TableName table) {
    Dialect preset = Dialect.of(dialect);
    return "table "
        + table.qualified()
        + " does not exist (or this database user cannot read it): create it at start-up with"
        + " OutboxSchema.create(connection, \""
        + table.qualified()
        + "\""
        + (preset == null ? ", yourDialect" : "")
        + "), or run the DDL of OutboxSchema.ddl("
        + inCode(dialect)
        + ", \""
        + table.qualified()
        + "\") in your migrations"
        + (preset == null
            ? ""
            : " (shipped in outboxkit-jdbc as dev/outboxkit/jdbc/schema/"
                + schemaFile(preset)
                + ")");
  }

  private static String missingInbox(SqlDialect dialect, TableName table) {
    return "inbox table "
        + table.qualified()
        + " does not exist (or this database user cannot read it): create it at start-up with"
        + " OutboxSchema.createInbox(connection, \""
        + table.qualified()
        + "\", "
        + inCode(dialect)
        + "), or run the DDL of OutboxSchema.inboxDdl("
        + inCode(dialect)
        + ", \""
        + table.qualified()
        + "\") in your migrations";
  }

  private static String missingVersionTable(
      SqlDialect dialect, TableName inbox, TableName versionTable) {
    boolean derived = versionTable.qualified().equals(inbox.qualified() + "_version");
    String names =
        "\""
            + inbox.qualified()
            + "\", "
            + (derived ? "" : "\"" + versionTable.qualified() + "\", ");
    String dialectInCode =
        derived || Dialect.of(dialect) == null ? inCode(dialect) : inCode(dialect) + ".preset()";
    return "inbox version table "
        + versionTable.qualified()
        + " does not exist (or this database user cannot read it): Inbox.accept keeps the last"
        + " version applied of each aggregate there. Create it at start-up with"
        + " OutboxSchema.createInbox(connection, "
        + names
        + dialectInCode
        + "), which leaves an existing inbox table as it is, or run the DDL of"
        + " OutboxSchema.inboxDdl("
        + (derived ? inCode(dialect) : dialectInCode)
        + ", "
        + names.substring(0, names.length() - 2)
        + ") in your migrations";
  }

  /** The columns of the shipped DDL, in order, each with its definition (type, default, null). */
  static Map<String, String> columns(SqlDialect dialect, TableName table) {
    Map<String, String> columns = new LinkedHashMap<>();
    if (dialect.schema().isEmpty()) {
      return columns; // a dialect without DDL: the table's existence is all that is checked
    }
    boolean inTable = false;
    for (String line : OutboxSchema.ddl(dialect, table.qualified()).split("\n")) {
      if (line.startsWith("CREATE TABLE")) {
        inTable = true;
      } else if (inTable && line.startsWith(")")) {
        break;
      } else if (inTable) {
        Matcher m = COLUMN.matcher(line);
        if (m.matches()) {
          columns.put(m.group(1), m.group(2).trim().replaceAll("\\s+", " "));
        }
      }
    }
    return columns;
  }

  /**
   * The shipped DDL's index statements for a table that lacks some columns: each index that names
   * one of them (a {@code CREATE INDEX} as it is; a {@code KEY} inside MySQL's {@code CREATE TABLE}
   * as an {@code ALTER TABLE ... ADD KEY}) and each {@code DROP INDEX} of an index it replaces.
   */
  static String indexesFor(SqlDialect dialect, TableName table, List<String> missing) {
    if (dialect.schema().isEmpty()) {
      return "";
    }
    Pattern named = Pattern.compile("\\b(" + String.join("|", missing) + ")\\b");
    StringBuilder out = new StringBuilder();
    StringBuilder statement = new StringBuilder();
    boolean inTable = false;
    for (String line : OutboxSchema.ddl(dialect, table.qualified()).split("\n")) {
      String code = line.contains("--") ? line.substring(0, line.indexOf("--")) : line;
      if (code.isBlank()) {
        continue;
      }
      if (code.startsWith("CREATE TABLE")) {
        inTable = true;
      } else if (inTable) {
        inTable = !code.startsWith(")");
        Matcher key = INDEX_IN_TABLE.matcher(code);
        if (key.matches() && named.matcher(key.group(2)).find()) {
          out.append("\n  ALTER TABLE ").append(table.qualified()).append(" ADD ");
          out.append(key.group(1)).append(';');
        }
      } else {
        statement.append(code.strip()).append(' ');
        if (code.stripTrailing().endsWith(";")) {
          String text = statement.toString().strip();
          statement.setLength(0);
          if (text.startsWith("DROP INDEX")
              || (text.startsWith("CREATE INDEX") && named.matcher(text).find())) {
            out.append("\n  ").append(text.replaceAll("\\s+", " "));
          }
        }
      }
    }
    return out.length() == 0 ? "" : "\n  -- and the indexes on them:" + out;
  }

  /**
   * The statements that replace the table's status CHECK with the shipped DDL's, for a table made
   * before the newer states existed (its inserts work, but withdrawing an event would break the
   * check); empty for a DDL without one.
   */
  static String statusCheckRefresh(SqlDialect dialect, TableName table) {
    if (dialect.schema().isEmpty()) {
      return "";
    }
    Matcher m = STATUS_CHECK.matcher(OutboxSchema.ddl(dialect, table.qualified()));
    if (!m.find()) {
      return "";
    }
    String alter = "\n  ALTER TABLE " + table.qualified();
    return "\n  -- and, as the table's status CHECK predates the newer states:"
        + alter
        + " DROP CONSTRAINT "
        + m.group(1)
        + ';'
        + alter
        + " ADD CONSTRAINT "
        + m.group(1)
        + " CHECK ("
        + m.group(2).replaceAll("\\s+", " ")
        + ");";
  }

  /** The name of a preset's DDL file under {@code dev/outboxkit/jdbc/schema/}. */
  static String schemaFile(Dialect preset) {
    // MariaDB shares MySQL's file; every other preset has one named after it.
    Dialect file = preset == Dialect.MARIADB ? Dialect.MYSQL : preset;
    return file.name().toLowerCase(Locale.ROOT) + ".sql";
  }
}
