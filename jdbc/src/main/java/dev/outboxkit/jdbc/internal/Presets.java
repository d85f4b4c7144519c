package dev.outboxkit.jdbc.internal;

import dev.outboxkit.jdbc.dialect.ClaimCapability;
import dev.outboxkit.jdbc.dialect.ErrorCodes;
import dev.outboxkit.jdbc.dialect.ErrorCodes.Kind;
import dev.outboxkit.jdbc.dialect.IdColumn;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import dev.outboxkit.jdbc.dialect.TimeColumn;

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

  /** The name of a preset's DDL file under {@code dev/outboxkit/jdbc/schema/}. */
  public static String schemaFile(dev.outboxkit.jdbc.Dialect preset) {
    switch (preset) {
      case POSTGRESQL:
        return "postgresql.sql";
      case H2:
        return "h2.sql";
      default:
        return "mysql.sql";
    }
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

  /** Built on first use, so that a bad shipped file fails loudly there, never at class loading. */
  private static final class Holder {
    static final SqlDialect POSTGRES = buildPostgres();
    static final SqlDialect MYSQL = mysqlFamily("MySQL").build();
    static final SqlDialect MARIADB =
        mysqlFamily("MariaDB")
            .statements("mariadb.sql", SqlStatements.shippedText("mariadb.sql"))
            .build();
    static final SqlDialect H2 = buildH2();
  }
}
