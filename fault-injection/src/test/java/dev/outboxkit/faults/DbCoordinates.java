package dev.outboxkit.faults;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxkit.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** How to reach a test database, handed from the test to its child JVMs as arguments. */
final class DbCoordinates {
  final String url;
  final String user;
  final String password;

  private DbCoordinates(String url, String user, String password) {
    this.url = url;
    this.user = user;
    this.password = password;
  }

  static DbCoordinates of(TestDatabase db) {
    return new DbCoordinates(db.jdbcUrl(), db.user(), db.password());
  }

  /** Reads the arguments {@link #args()} wrote. */
  static DbCoordinates from(Map<String, String> options) {
    return new DbCoordinates(
        Child.required(options, "url"), options.get("user"), options.get("password"));
  }

  /** {@code --url=... [--user=...] [--password=...]}; user and password may be in the URL. */
  List<String> args() {
    List<String> args = new ArrayList<>();
    args.add("--url=" + url);
    if (user != null) {
      args.add("--user=" + user);
    }
    if (password != null) {
      args.add("--password=" + password);
    }
    return args;
  }

  boolean postgres() {
    return url.startsWith("jdbc:postgresql:");
  }

  /** A plain, unpooled connection. */
  Connection connect() throws SQLException {
    return user == null
        ? DriverManager.getConnection(url)
        : DriverManager.getConnection(url, user, password);
  }

  /**
   * A connection pool as the test kit builds them (sessions in a non-UTC zone), optionally tagged:
   * on PostgreSQL the tag becomes the sessions' {@code application_name}, which is how a test finds
   * (and cuts) exactly its relays' connections on a server other builds share.
   */
  HikariDataSource pool(String name, int size, String applicationName) {
    HikariConfig config = new HikariConfig();
    String jdbcUrl = url;
    if (postgres()) {
      config.setConnectionInitSql("SET TIME ZONE 'Asia/Kathmandu'");
      if (applicationName != null) {
        jdbcUrl += (url.contains("?") ? "&" : "?") + "ApplicationName=" + applicationName;
      }
    } else {
      config.setConnectionInitSql("SET time_zone = '+05:45'");
    }
    config.setJdbcUrl(jdbcUrl);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(0);
    config.setPoolName(name);
    config.setConnectionTimeout(10_000);
    config.setInitializationFailTimeout(-1);
    return new HikariDataSource(config);
  }
}
