package dev.outboxkit.jdbc;

import dev.outboxkit.OutboxConfigurationException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;

/**
 * The database products OutboxKit speaks. Detected from the connection's metadata unless named
 * explicitly (name it when a proxy or unusual driver hides the product).
 */
public enum Dialect {
  /** PostgreSQL 12 or later. */
  POSTGRESQL,
  /** MySQL 8.0 or later. */
  MYSQL,
  /** MariaDB 10.6 or later (the first with {@code SKIP LOCKED}). */
  MARIADB,
  /** H2 2.x, for development and tests. */
  H2;

  /**
   * Detects the product behind a connection without running a statement.
   *
   * <p>MySQL Connector/J reports MariaDB as "MySQL" with a version like {@code
   * 5.5.5-10.11.6-MariaDB}, so the version string decides between the two.
   *
   * @param connection an open connection; left untouched
   * @return the dialect
   * @throws OutboxConfigurationException if the product is not supported
   * @throws SQLException if the metadata cannot be read
   */
  public static Dialect detect(Connection connection) throws SQLException {
    DatabaseMetaData md = connection.getMetaData();
    String product = md.getDatabaseProductName();
    String version = md.getDatabaseProductVersion();
    if (product.contains("PostgreSQL")) {
      return POSTGRESQL;
    }
    if (product.contains("MariaDB") || version.contains("MariaDB")) {
      return MARIADB;
    }
    if (product.contains("MySQL")) {
      return MYSQL;
    }
    if (product.contains("H2")) {
      return H2;
    }
    throw new OutboxConfigurationException(
        "unsupported database '"
            + product
            + " "
            + version
            + "': OutboxKit supports PostgreSQL, MySQL, MariaDB and H2; if this is one of them"
            + " behind a proxy, name the dialect explicitly");
  }
}
