package dev.outboxkit.testkit;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands tests real database servers, one per flavour per JVM, found in this order:
 *
 * <ol>
 *   <li>URLs in environment variables: {@code OUTBOXKIT_TEST_POSTGRES_URL}, {@code
 *       OUTBOXKIT_TEST_MYSQL_URL} (MySQL or MariaDB: the product is detected), {@code
 *       OUTBOXKIT_TEST_MARIADB_URL}, each with optional {@code _USER} and {@code _PASSWORD}
 *       variables ({@code OUTBOXKIT_TEST_POSTGRES_USER}, ...);
 *   <li>embedded real servers from Maven Central (PostgreSQL 14, MariaDB 11.4, MySQL 8.0.15),
 *       started by the test JVM; see {@link Fallbacks}.
 * </ol>
 *
 * H2 is always in memory. A flavour that cannot be had aborts the test (reported as skipped) with
 * the reason.
 */
public final class TestDatabases {
  private static final Logger log = LoggerFactory.getLogger(TestDatabases.class);
  private static final Map<Flavor, Optional<DatabaseServer>> SERVERS = new EnumMap<>(Flavor.class);
  private static Optional<DatabaseServer> logicalPostgres;

  private TestDatabases() {}

  /**
   * Creates a fresh, empty database of this flavour; skips the calling test if none can be had.
   *
   * @param flavor the product
   * @param prefix readable part of the database name, e.g. the test class's simple name
   */
  public static TestDatabase create(Flavor flavor, String prefix) {
    Optional<DatabaseServer> server = server(flavor);
    Assumptions.assumeTrue(
        server.isPresent(),
        () -> "no " + flavor + " server: set OUTBOXKIT_TEST_" + flavor + "_URL to run these tests");
    return server.get().createDatabase(prefix);
  }

  /** The shared server of this flavour, started on first use, or empty if none can be had. */
  public static synchronized Optional<DatabaseServer> server(Flavor flavor) {
    return SERVERS.computeIfAbsent(flavor, TestDatabases::find);
  }

  /**
   * Creates a fresh, empty database (a schema) on a PostgreSQL server with {@code
   * wal_level=logical}, for change data capture tests; skips the calling test if none can be had.
   * The server is always one this JVM starts for itself (embedded, on first use), never the one
   * named by {@code OUTBOXKIT_TEST_POSTGRES_URL}: logical decoding needs a server restart to turn
   * on, and tests never reconfigure a shared server.
   *
   * @param prefix readable part of the schema name, e.g. the test class's simple name
   */
  public static synchronized TestDatabase createLogicalReplication(String prefix) {
    if (logicalPostgres == null) {
      logicalPostgres = Fallbacks.startLogicalPostgres();
    }
    Assumptions.assumeTrue(
        logicalPostgres.isPresent(),
        "no embedded PostgreSQL with wal_level=logical can run on this machine");
    return logicalPostgres.get().createDatabase(prefix);
  }

  private static Optional<DatabaseServer> find(Flavor flavor) {
    Optional<DatabaseServer> server = fromEnvironment(flavor);
    if (server.isEmpty()) {
      server = Fallbacks.start(flavor);
    }
    server.ifPresentOrElse(
        s -> log.info("{} tests use {}", flavor, s.origin()),
        () -> log.warn("{} tests are skipped: no server found", flavor));
    return server;
  }

  private static Optional<DatabaseServer> fromEnvironment(Flavor flavor) {
    switch (flavor) {
      case H2:
        return Optional.of(new H2Server());
      case POSTGRES:
        return env("POSTGRES", Flavor.POSTGRES);
      case MARIADB:
        return env("MARIADB", Flavor.MARIADB).or(() -> env("MYSQL", Flavor.MARIADB));
      case MYSQL:
        return env("MYSQL", Flavor.MYSQL);
      default:
        throw new AssertionError(flavor);
    }
  }

  /** The server named by OUTBOXKIT_TEST_{key}_URL, if set and of the wanted product. */
  private static Optional<DatabaseServer> env(String key, Flavor wanted) {
    String prefix = "OUTBOXKIT_TEST_" + key;
    String url = System.getenv(prefix + "_URL");
    if (url == null || url.isBlank()) {
      return Optional.empty();
    }
    JdbcUrlServer server =
        new JdbcUrlServer(
            wanted,
            "env " + prefix + "_URL",
            url,
            System.getenv(prefix + "_USER"),
            System.getenv(prefix + "_PASSWORD"));
    Flavor actual = detect(server.adminConnections(), prefix + "_URL");
    return actual == wanted ? Optional.of(server) : Optional.empty();
  }

  /**
   * Tells MariaDB from MySQL: Connector/J calls both "MySQL" but keeps "MariaDB" in the version.
   */
  static Flavor detect(ConnectionFactory connections, String what) {
    try (Connection c = connections.open()) {
      DatabaseMetaData md = c.getMetaData();
      String product = md.getDatabaseProductName();
      if (product.contains("PostgreSQL")) {
        return Flavor.POSTGRES;
      }
      if (product.contains("H2")) {
        return Flavor.H2;
      }
      return md.getDatabaseProductVersion().contains("MariaDB") ? Flavor.MARIADB : Flavor.MYSQL;
    } catch (SQLException e) {
      throw new IllegalStateException(
          what + " is set but the server cannot be reached: " + e.getMessage(), e);
    }
  }
}
