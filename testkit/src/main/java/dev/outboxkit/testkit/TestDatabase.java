package dev.outboxkit.testkit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * One fresh database on a {@link DatabaseServer}: a pooled {@link DataSource} plus the raw JDBC
 * coordinates (for child JVMs and benchmarks). Closing it closes the pool and drops the database.
 */
public final class TestDatabase implements AutoCloseable {
  private final Flavor flavor;
  private final String name;
  private final String jdbcUrl;
  private final String user;
  private final String password;
  private final String dropStatement;
  private final ConnectionFactory admin;
  private final HikariDataSource pool;

  TestDatabase(
      Flavor flavor,
      String name,
      String jdbcUrl,
      String user,
      String password,
      String dropStatement,
      ConnectionFactory admin) {
    this.flavor = flavor;
    this.name = name;
    this.jdbcUrl = jdbcUrl;
    this.user = user;
    this.password = password;
    this.dropStatement = dropStatement;
    this.admin = admin;
    this.pool = newPool(jdbcUrl, user, password, 16, name);
  }

  static HikariDataSource newPool(
      String jdbcUrl, String user, String password, int size, String name) {
    HikariConfig config = new HikariConfig();
    // Sessions run in a zone unlike the JVM's (Pacific/Chatham in Surefire) and unlike UTC, so
    // any code that leans on a session or JVM time zone shows it in the tests.
    if (jdbcUrl.startsWith("jdbc:postgresql:")) {
      config.setConnectionInitSql("SET TIME ZONE 'Asia/Kathmandu'");
    } else if (jdbcUrl.startsWith("jdbc:mysql:") || jdbcUrl.startsWith("jdbc:mariadb:")) {
      config.setConnectionInitSql("SET time_zone = '+05:45'");
    } else if (jdbcUrl.startsWith("jdbc:h2:")) {
      config.setConnectionInitSql("SET TIME ZONE 'Asia/Kathmandu'");
    }
    config.setJdbcUrl(jdbcUrl);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(0);
    config.setPoolName("test-" + name);
    config.setConnectionTimeout(10_000);
    config.setInitializationFailTimeout(-1);
    return new HikariDataSource(config);
  }

  /** The product. */
  public Flavor flavor() {
    return flavor;
  }

  /** The database (or schema) name. */
  public String name() {
    return name;
  }

  /** A pooled data source (16 connections at most) on this database. */
  public DataSource dataSource() {
    return pool;
  }

  /** A new, separate pool on this database, e.g. to give each relay its own. Caller closes it. */
  public HikariDataSource newDataSource(int maxConnections) {
    return newPool(jdbcUrl, user, password, maxConnections, name + "-extra");
  }

  /** JDBC URL that reaches this database, for child JVMs and plain {@code DriverManager} use. */
  public String jdbcUrl() {
    return jdbcUrl;
  }

  /** User name for {@link #jdbcUrl()}. */
  public String user() {
    return user;
  }

  /** Password for {@link #jdbcUrl()}. */
  public String password() {
    return password;
  }

  /** Borrows a pooled connection (auto-commit on); close it to give it back. */
  public Connection connect() throws SQLException {
    return pool.getConnection();
  }

  @Override
  public void close() {
    pool.close();
    if (dropStatement == null) {
      return;
    }
    try (Connection c = admin.open();
        Statement s = c.createStatement()) {
      s.execute(dropStatement);
    } catch (SQLException e) {
      // A leftover test database harms nothing; the server is throw-away or a CI service.
    }
  }

  @Override
  public String toString() {
    return flavor + " " + name;
  }
}
