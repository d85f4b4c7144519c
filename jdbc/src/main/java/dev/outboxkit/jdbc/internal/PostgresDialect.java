package dev.outboxkit.jdbc.internal;

/**
 * PostgreSQL 12+: partial indexes, {@code UPDATE … RETURNING} claims ({@link ReturningClaim}),
 * {@code now()} as the clock, times as {@code TIMESTAMPTZ}.
 */
final class PostgresDialect extends SqlDialect {
  /** The statements of {@code dev/outboxkit/jdbc/sql/postgresql.sql} over {@code common.sql}. */
  PostgresDialect() {
    super("PostgreSQL", "now()", "postgresql.sql", ReturningClaim::new, "postgresql.sql");
  }
}
