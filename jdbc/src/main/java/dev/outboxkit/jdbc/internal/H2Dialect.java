package dev.outboxkit.jdbc.internal;

/**
 * H2 2.x, for development and tests. Claims like MySQL ({@link SteppedClaim}), with {@code
 * CURRENT_TIMESTAMP} as the clock and times as {@code TIMESTAMP WITH TIME ZONE}.
 */
final class H2Dialect extends SqlDialect {
  static final SqlClock CLOCK =
      new SqlClock(
          "CURRENT_TIMESTAMP",
          "DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP)",
          "DATEADD(MICROSECOND, -?, CURRENT_TIMESTAMP)");

  /** The statements of {@code dev/outboxkit/jdbc/sql/h2.sql} over {@code common.sql}. */
  H2Dialect() {
    super("H2", CLOCK, "h2.sql", SteppedClaim::new, "h2.sql");
  }
}
