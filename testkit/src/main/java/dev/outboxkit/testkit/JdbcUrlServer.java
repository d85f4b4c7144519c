package dev.outboxkit.testkit;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A PostgreSQL or MySQL-family server reached through a JDBC URL of the form {@code
 * jdbc:postgresql://host:port/db?params} or {@code jdbc:mysql://host:port/db?params}, whether a CI
 * service, a container or an embedded server. Each test database is a PostgreSQL schema (cheap to
 * create) or a MySQL database.
 */
public final class JdbcUrlServer implements DatabaseServer {
  private static final Pattern URL =
      Pattern.compile("(jdbc:(?:postgresql|mysql|mariadb)://[^/]+/)([^?]*)(\\?.*)?");

  private final Flavor flavor;
  private final String origin;
  private final String url;
  private final String user;
  private final String password;

  /**
   * @param flavor the product behind the URL
   * @param origin where the server came from, for logs
   * @param url a URL naming an existing database the user may create schemas/databases from
   * @param user user name, or null when the URL carries it
   * @param password password, or null
   */
  public JdbcUrlServer(Flavor flavor, String origin, String url, String user, String password) {
    if (!URL.matcher(url).matches()) {
      throw new IllegalArgumentException(
          "unsupported test database URL (want jdbc:postgresql|mysql://host:port/db?params): "
              + url);
    }
    this.flavor = flavor;
    this.origin = origin;
    this.url = url;
    this.user = user;
    this.password = password;
  }

  @Override
  public Flavor flavor() {
    return flavor;
  }

  @Override
  public String origin() {
    return origin;
  }

  /** Connections to the database named in the server's URL (not a test database). */
  public ConnectionFactory adminConnections() {
    return ConnectionFactory.of(url, user, password);
  }

  @Override
  public TestDatabase createDatabase(String prefix) {
    String name = shortName(prefix);
    String create;
    String drop;
    String testUrl;
    Matcher m = URL.matcher(url);
    m.matches();
    String params = m.group(3) == null ? "" : m.group(3);
    if (flavor == Flavor.POSTGRES) {
      create = "CREATE SCHEMA " + name;
      drop = "DROP SCHEMA " + name + " CASCADE";
      testUrl = url + (params.isEmpty() ? "?" : "&") + "currentSchema=" + name;
    } else {
      create = "CREATE DATABASE " + name;
      drop = "DROP DATABASE " + name;
      testUrl = m.group(1) + name + params;
    }
    try (Connection c = adminConnections().open();
        Statement s = c.createStatement()) {
      s.execute(create);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create test database " + name + " via " + origin, e);
    }
    return new TestDatabase(flavor, name, testUrl, user, password, drop, adminConnections());
  }

  private static String shortName(String prefix) {
    String base = prefix.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    if (base.length() > 40) {
      base = base.substring(0, 40);
    }
    return "okt_" + base + "_" + Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36);
  }

  @Override
  public String toString() {
    return flavor + " via " + origin;
  }
}
