package dev.outboxkit.jdbc.internal;

/**
 * MariaDB 10.6+ (the first with {@code SKIP LOCKED}). The SQL and DDL of MySQL, except the server
 * variables that bound a transaction's time ({@code mariadb.sql}).
 */
final class MariaDbDialect extends MySqlDialect {
  /** The MariaDB dialect: MySQL's statements, and mariadb.sql where the variables differ. */
  MariaDbDialect() {
    super("MariaDB", "mariadb.sql");
  }
}
