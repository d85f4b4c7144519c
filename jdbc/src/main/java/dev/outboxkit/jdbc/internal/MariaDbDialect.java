package dev.outboxkit.jdbc.internal;

/**
 * MariaDB 10.6+ (the first with {@code SKIP LOCKED}). Same SQL and DDL as MySQL; kept apart so it
 * is named correctly and can diverge where the products do.
 */
public final class MariaDbDialect extends MySqlDialect {
  @Override
  public String name() {
    return "MariaDB";
  }
}
