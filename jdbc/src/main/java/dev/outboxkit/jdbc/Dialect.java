package dev.outboxkit.jdbc;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import dev.outboxkit.jdbc.internal.Presets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;

/**
 * The database products OutboxKit ships, each a preset of the dialect SPI ({@link #preset()}).
 * Detected from the connection's metadata unless named explicitly (name it when a proxy or unusual
 * driver hides the product). Any other database gets a {@link SqlDialect} of its own, registered
 * with {@link dev.outboxkit.jdbc.dialect.DialectRegistry} so that it is detected too.
 */
public enum Dialect {
  /** PostgreSQL 12 or later. */
  POSTGRESQL,
  /** MySQL 8.0 or later. */
  MYSQL,
  /** MariaDB 10.6 or later (the first with {@code SKIP LOCKED}). */
  MARIADB,
  /** H2 2.x, for development and tests. */
  H2,
  /**
   * Oracle Database 19c or later. Preview: not run against a real server by this project's CI;
   * written to Oracle's documentation and checked in H2's Oracle mode only.
   */
  ORACLE,
  /**
   * Microsoft SQL Server 2017 or later. Preview: not run against a real server by this project's
   * CI; written to Microsoft's documentation and checked in H2's SQL Server mode only.
   */
  SQLSERVER;

  /** {@return this database's dialect, to pass as it is or to start a dialect of your own from} */
  public SqlDialect preset() {
    switch (this) {
      case POSTGRESQL:
        return Presets.postgres();
      case MYSQL:
        return Presets.mysql();
      case MARIADB:
        return Presets.mariadb();
      case ORACLE:
        return Presets.oracle();
      case SQLSERVER:
        return Presets.sqlServer();
      default:
        return Presets.h2();
    }
  }

  /**
   * {@return the shipped database this dialect is, or null for a dialect of a user's own (one built
   * from a preset with {@code toBuilder} is the user's own)}
   *
   * @param dialect a dialect
   */
  public static Dialect of(SqlDialect dialect) {
    for (Dialect d : values()) {
      if (d.preset() == dialect) {
        return d;
      }
    }
    return null;
  }

  /**
   * Detects the product behind a connection without running a statement.
   *
   * <p>MySQL Connector/J reports MariaDB as "MySQL" with a version like {@code
   * 5.5.5-10.11.6-MariaDB}, so the version string decides between the two.
   *
   * @param connection an open connection; left untouched
   * @return the dialect
   * @throws OutboxConfigurationException if the product is none of these ({@link
   *     dev.outboxkit.jdbc.dialect.DialectRegistry#detect} also finds dialects users registered)
   * @throws SQLException if the metadata cannot be read
   */
  public static Dialect detect(Connection connection) throws SQLException {
    Dialect d = detect(connection.getMetaData());
    if (d == null) {
      throw new OutboxConfigurationException(Presets.unknownDatabase(connection.getMetaData()));
    }
    return d;
  }

  /**
   * {@return the shipped database behind this metadata, or null for another product}
   *
   * @param md a connection's metadata
   * @throws SQLException if it cannot be read
   */
  public static Dialect detect(DatabaseMetaData md) throws SQLException {
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
    // Oracle's driver reports "Oracle"; Microsoft's "Microsoft SQL Server".
    if (product.contains("Oracle")) {
      return ORACLE;
    }
    if (product.contains("Microsoft SQL Server")) {
      return SQLSERVER;
    }
    return null;
  }
}
