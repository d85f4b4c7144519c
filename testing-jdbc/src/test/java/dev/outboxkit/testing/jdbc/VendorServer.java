package dev.outboxkit.testing.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.JdbcDatabaseContainer;

/**
 * A database server this project's machines cannot run (Oracle, SQL Server), for the dialect
 * contract kit: the one a JDBC URL in an environment variable names, else one Testcontainers starts
 * where a Docker engine is available. Where neither is, each test is skipped by an assumption that
 * says so, and the build output counts them as skipped. Register it on a per-class test instance:
 * it stops after the kit's own class-level clean-up.
 */
final class VendorServer implements BeforeAllCallback, AfterAllCallback {
  private final String product;
  private final String urlVariable;
  private final Supplier<JdbcDatabaseContainer<?>> containers;
  private JdbcDatabaseContainer<?> container;
  private HikariDataSource pool;
  private String missing;

  /**
   * @param product for the skip message
   * @param urlVariable the environment variable with a JDBC URL (user and password in it)
   * @param containers the container to start when there is no URL
   */
  VendorServer(String product, String urlVariable, Supplier<JdbcDatabaseContainer<?>> containers) {
    this.product = product;
    this.urlVariable = urlVariable;
    this.containers = containers;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    String url = System.getenv(urlVariable);
    if (url != null && !url.isBlank()) {
      pool = pool(url, null, null);
      return;
    }
    if (!DockerClientFactory.instance().isDockerAvailable()) {
      missing =
          "no "
              + product
              + " server: set "
              + urlVariable
              + " to a JDBC URL, or run a Docker engine for Testcontainers. The "
              + product
              + " preset is a preview, not run against a real server by this project's CI";
      return;
    }
    container = containers.get();
    container.start();
    pool = pool(container.getJdbcUrl(), container.getUsername(), container.getPassword());
  }

  private static HikariDataSource pool(String url, String user, String password) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    if (user != null) {
      config.setUsername(user);
      config.setPassword(password);
    }
    config.setMaximumPoolSize(16);
    return new HikariDataSource(config);
  }

  /** The server's pool; where there is none, the asking test is skipped, saying why. */
  DataSource dataSource() {
    Assumptions.assumeTrue(pool != null, missing);
    return pool;
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (pool != null) {
      pool.close();
    }
    if (container != null) {
      container.stop();
    }
  }
}
