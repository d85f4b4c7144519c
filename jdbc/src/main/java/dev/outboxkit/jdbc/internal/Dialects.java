package dev.outboxkit.jdbc.internal;

import dev.outboxkit.jdbc.Dialect;

/** Maps the public {@link Dialect} names to their SQL. */
public final class Dialects {
  private static final SqlDialect POSTGRES = new PostgresDialect();
  private static final SqlDialect MYSQL = new MySqlDialect();
  private static final SqlDialect MARIADB = new MariaDbDialect();
  private static final SqlDialect H2 = new H2Dialect();

  private Dialects() {}

  /** The SQL of a dialect. */
  public static SqlDialect sql(Dialect dialect) {
    switch (dialect) {
      case POSTGRESQL:
        return POSTGRES;
      case MYSQL:
        return MYSQL;
      case MARIADB:
        return MARIADB;
      case H2:
        return H2;
      default:
        throw new AssertionError(dialect);
    }
  }
}
