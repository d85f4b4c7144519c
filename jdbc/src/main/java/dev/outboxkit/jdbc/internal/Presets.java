package dev.outboxkit.jdbc.internal;

import dev.outboxkit.jdbc.dialect.ClaimCapability;
import dev.outboxkit.jdbc.dialect.ErrorCodes;
import dev.outboxkit.jdbc.dialect.ErrorCodes.Kind;
import dev.outboxkit.jdbc.dialect.IdColumn;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import dev.outboxkit.jdbc.dialect.TimeColumn;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;

/**
 * The shipped databases, each a {@link SqlDialect} built from {@code common.sql}, its vendor file
 * under {@code dev/outboxkit/jdbc/sql/} and its DDL under {@code dev/outboxkit/jdbc/schema/}. Built
 * once, on first use.
 */
public final class Presets {
  private static final String SCHEMA = "/dev/outboxkit/jdbc/schema/";

  private Presets() {}

  /**
   * PostgreSQL 12+: partial indexes, {@code UPDATE … RETURNING} claims, {@code now()} as the clock,
   * times as {@code TIMESTAMPTZ}.
   */
  public static SqlDialect postgres() {
    return Holder.POSTGRES;
  }

  /**
   * MySQL 8.0+. Times are DATETIME(6) holding UTC, compared with {@code UTC_TIMESTAMP(6)}, bound as
   * text and read as {@code LocalDateTime}: Connector/J shifts neither by a time zone. Text,
   * because Connector/J drops the fractional seconds of temporal parameters when the server reports
   * a version below 5.6.4 — which MariaDB does ({@code 5.5.5-10.11.x-MariaDB}).
   *
   * <p>There is no {@code UPDATE … RETURNING}, and a locking read locks the rows of its subqueries
   * too (with SKIP LOCKED it would even skip them), so claims run in steps: a plain read of
   * candidates, a {@code FOR UPDATE SKIP LOCKED} read that re-checks them, and an update.
   */
  public static SqlDialect mysql() {
    return Holder.MYSQL;
  }

  /**
   * MariaDB 10.6+ (the first with {@code SKIP LOCKED}): MySQL's statements and DDL, except the
   * server variables that bound a transaction's time ({@code mariadb.sql}).
   */
  public static SqlDialect mariadb() {
    return Holder.MARIADB;
  }

  /** H2 2.x, for development and tests: claims like MySQL, times as {@code TIMESTAMPTZ}. */
  public static SqlDialect h2() {
    return Holder.H2;
  }

  /**
   * Oracle Database 19c+, a preview: written to Oracle's documentation and checked in H2's Oracle
   * mode, never run against a real Oracle server by this project's CI. Times are TIMESTAMP(6)
   * holding UTC, compared with {@code SYS_EXTRACT_UTC(SYSTIMESTAMP)}; event ids are RAW(16).
   *
   * <p>Oracle refuses a row limit beside {@code FOR UPDATE}, so claims run in steps and the locking
   * reads are limited by how far they are fetched ({@code setMaxRows}): with {@code SKIP LOCKED}
   * Oracle locks a row when it is fetched. There is no per-session lock or idle timeout to bound a
   * transaction with, so this dialect has no {@code boundTransaction}: the client's network timeout
   * is the bound. At most 1,000 values fit an IN list (ORA-01795): every list is split there
   * ({@link Query#MAX_LIST}).
   */
  public static SqlDialect oracle() {
    return Holder.ORACLE;
  }

  /**
   * Microsoft SQL Server 2017+, a preview: written to Microsoft's documentation and checked in H2's
   * SQL Server mode, never run against a real SQL Server by this project's CI. Times are
   * DATETIME2(6) holding UTC, compared with {@code SYSUTCDATETIME()}; event ids are
   * UNIQUEIDENTIFIER, bound as text.
   *
   * <p>Claims run in steps, the locking reads with the table hints {@code UPDLOCK, READPAST,
   * ROWLOCK} (SQL Server's {@code FOR UPDATE SKIP LOCKED}) and {@code TOP (:limit)}. There is no
   * {@code boundTransaction}: {@code SET LOCK_TIMEOUT} run as a prepared statement with a parameter
   * (which the driver sends through {@code sp_executesql} or {@code sp_prepexec}) is undone when
   * that call returns, so it cannot bound the statements after it. A statement takes at most 2,100
   * parameters: every list is split at 1,000 values ({@link Query#MAX_LIST}).
   */
  public static SqlDialect sqlServer() {
    return Holder.SQLSERVER;
  }

  /**
   * {@return the message for a database no dialect knows}
   *
   * @param md its metadata
   * @throws SQLException if the metadata cannot be read
   */
  public static String unknownDatabase(DatabaseMetaData md) throws SQLException {
    return "no dialect for database '"
        + md.getDatabaseProductName()
        + " "
        + md.getDatabaseProductVersion()
        + "': the presets are PostgreSQL, MySQL, MariaDB, H2, and Oracle and SQL Server as"
        + " previews (Dialect); if this is one of them"
        + " behind a proxy, name it (dialect(Dialect.POSTGRESQL.preset()), ...); for another"
        + " database build a SqlDialect (SqlDialect.builder or a preset's toBuilder) and pass it"
        + " to dialect(...), or register a DialectProvider with DialectRegistry.register or in"
        + " META-INF/services/dev.outboxkit.jdbc.dialect.DialectProvider";
  }

  private static SqlDialect.Builder vendor(String name, String file) {
    return SqlDialect.builder(name)
        .statements(file, SqlStatements.shippedText(file))
        .schemaFromResource(Presets.class, SCHEMA + file)
        .inboxSchemaFromResource(Presets.class, SCHEMA + "inbox-" + file);
  }

  private static SqlDialect buildPostgres() {
    return vendor("PostgreSQL", "postgresql.sql")
        .clock(
            "now()",
            "now() + {micros} * INTERVAL '1 microsecond'",
            "now() - {micros} * INTERVAL '1 microsecond'")
        .rowLimit("LIMIT {n}")
        .claim(ClaimCapability.RETURNING)
        .ids(IdColumn.UUID)
        .times(TimeColumn.OFFSET_DATE_TIME)
        .errors(
            ErrorCodes.none()
                .sqlStates(Kind.DEADLOCK, "40001", "40P01")
                .sqlStates(Kind.LOCK_TIMEOUT, "55P03")
                // Shutdown and termination of the session, idle-in-transaction timeout.
                .sqlStates(Kind.LOST_CONNECTION, "57P01", "57P02", "57P03", "25P03")
                .sqlStates(Kind.ALREADY_EXISTS, "42P07", "42710"))
        .build();
  }

  private static SqlDialect.Builder mysqlFamily(String name) {
    return vendor(name, "mysql.sql")
        .clock(
            "UTC_TIMESTAMP(6)",
            "TIMESTAMPADD(MICROSECOND, {micros}, UTC_TIMESTAMP(6))",
            "TIMESTAMPADD(MICROSECOND, -{micros}, UTC_TIMESTAMP(6))")
        .rowLimit("LIMIT {n}")
        .claim(ClaimCapability.SKIP_LOCKED)
        .ids(IdColumn.TEXT)
        .times(TimeColumn.UTC_TEXT)
        .errors(
            ErrorCodes.none()
                .sqlStates(Kind.DEADLOCK, "40001")
                .vendorCodes(Kind.DEADLOCK, 1213)
                .vendorCodes(Kind.LOCK_TIMEOUT, 1205)
                .vendorCodes(Kind.ALREADY_EXISTS, 1050, 1061));
  }

  private static SqlDialect buildH2() {
    return vendor("H2", "h2.sql")
        .clock(
            "CURRENT_TIMESTAMP",
            "DATEADD(MICROSECOND, {micros}, CURRENT_TIMESTAMP)",
            "DATEADD(MICROSECOND, -{micros}, CURRENT_TIMESTAMP)")
        .rowLimit("LIMIT {n}")
        .claim(ClaimCapability.SKIP_LOCKED)
        .ids(IdColumn.UUID)
        .times(TimeColumn.OFFSET_DATE_TIME)
        .errors(
            ErrorCodes.none()
                .sqlStates(Kind.DEADLOCK, "40001")
                .vendorCodes(Kind.LOCK_TIMEOUT, 50200)
                .sqlStates(Kind.ALREADY_EXISTS, "42S01", "42S11")
                // H2's MERGE can lose a race for the inbox key instead of waiting.
                .sqlStates(Kind.DUPLICATE_KEY, "23505"))
        .build();
  }

  private static SqlDialect buildOracle() {
    return vendor("Oracle", "oracle.sql")
        // Interval arithmetic in NUMBER: the division is exact, and the interval is taken in
        // seconds so that a delay of centuries still fits its day precision.
        .clock(
            "SYS_EXTRACT_UTC(SYSTIMESTAMP)",
            "SYS_EXTRACT_UTC(SYSTIMESTAMP) + NUMTODSINTERVAL({micros} / 1000000, 'SECOND')",
            "SYS_EXTRACT_UTC(SYSTIMESTAMP) - NUMTODSINTERVAL({micros} / 1000000, 'SECOND')")
        .rowLimit("FETCH FIRST {n} ROWS ONLY")
        .oneRowTable("dual")
        .claim(ClaimCapability.SKIP_LOCKED)
        .ids(IdColumn.BYTES)
        .times(TimeColumn.UTC_LOCAL_DATE_TIME)
        .errors(
            ErrorCodes.none()
                // ORA-00060 deadlock detected.
                .sqlStates(Kind.DEADLOCK, "61000")
                .vendorCodes(Kind.DEADLOCK, 60)
                // ORA-30006 (WAIT timeout expired), ORA-00054 (resource busy, NOWAIT or timeout).
                .vendorCodes(Kind.LOCK_TIMEOUT, 30006, 54)
                // ORA-03113 end-of-file on channel, ORA-03114 not connected, ORA-03135 connection
                // lost contact, ORA-00028 session killed, ORA-01012 not logged on, ORA-01092
                // instance terminated, ORA-02396 idle time exceeded; the driver's own 17002 I/O
                // error, 17008 closed connection, 17410 no more data to read from socket.
                .vendorCodes(
                    Kind.LOST_CONNECTION,
                    3113,
                    3114,
                    3135,
                    28,
                    1012,
                    1092,
                    2396,
                    17002,
                    17008,
                    17410)
                // ORA-00955 name already used, ORA-01408 column list already indexed.
                .vendorCodes(Kind.ALREADY_EXISTS, 955, 1408))
        .build();
  }

  private static SqlDialect buildSqlServer() {
    return vendor("Microsoft SQL Server", "sqlserver.sql")
        // DATEADD takes an int: the micros are split into days, seconds of the day and
        // microseconds of the second, so that any delay DATETIME2 can reach is exact.
        .clock(
            "SYSUTCDATETIME()",
            "DATEADD(MICROSECOND, {micros} % 1000000, DATEADD(SECOND, ({micros} / 1000000) % 86400,"
                + " DATEADD(DAY, {micros} / 86400000000, SYSUTCDATETIME())))",
            "DATEADD(MICROSECOND, -({micros} % 1000000), DATEADD(SECOND, -(({micros} / 1000000)"
                + " % 86400), DATEADD(DAY, -({micros} / 86400000000), SYSUTCDATETIME())))")
        .rowLimit("OFFSET 0 ROWS FETCH NEXT {n} ROWS ONLY")
        .claim(ClaimCapability.SKIP_LOCKED)
        .ids(IdColumn.TEXT)
        .times(TimeColumn.UTC_LOCAL_DATE_TIME)
        .errors(
            ErrorCodes.none()
                .sqlStates(Kind.DEADLOCK, "40001")
                .vendorCodes(Kind.DEADLOCK, 1205)
                .vendorCodes(Kind.LOCK_TIMEOUT, 1222)
                // The driver's communication link failure; 596: the session was killed.
                .sqlStates(Kind.LOST_CONNECTION, "08S01")
                .vendorCodes(Kind.LOST_CONNECTION, 596)
                // 2714 an object of that name exists; 1913 an index of that name exists.
                .vendorCodes(Kind.ALREADY_EXISTS, 2714, 1913))
        .build();
  }

  /** Built on first use, so that a bad shipped file fails loudly there, never at class loading. */
  private static final class Holder {
    static final SqlDialect POSTGRES = buildPostgres();
    static final SqlDialect MYSQL = mysqlFamily("MySQL").build();
    static final SqlDialect MARIADB =
        mysqlFamily("MariaDB")
            .statements("mariadb.sql", SqlStatements.shippedText("mariadb.sql"))
            .build();
    static final SqlDialect H2 = buildH2();
    static final SqlDialect ORACLE = buildOracle();
    static final SqlDialect SQLSERVER = buildSqlServer();
  }
}
