package dev.outboxkit.jdbc.internal;

/**
 * PostgreSQL 12+: partial indexes, {@code UPDATE … RETURNING} claims ({@link ReturningClaim}),
 * {@code now()} as the clock, times as {@code TIMESTAMPTZ}.
 */
final class PostgresDialect extends SqlDialect {
  static final SqlClock CLOCK =
      new SqlClock(
          "now()", "now() + ? * INTERVAL '1 microsecond'", "now() - ? * INTERVAL '1 microsecond'");

  /** The statements of {@code dev/outboxkit/jdbc/sql/postgresql.sql} over {@code common.sql}. */
  PostgresDialect() {
    super("PostgreSQL", CLOCK, "postgresql.sql", ReturningClaim::new, "postgresql.sql");
  }
}
