package dev.outboxkit.console.standalone;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source that opens a connection per call from a JDBC URL: the standalone console reads a
 * few statements per page, so a pool would buy little. The URL may carry the user and password;
 * {@code OUTBOXKIT_CONSOLE_JDBC_USER} and {@code OUTBOXKIT_CONSOLE_JDBC_PASSWORD} may too.
 */
final class UrlDataSource implements DataSource {
  private final String url;
  private final String user;
  private final String password;

  UrlDataSource(String url, String user, String password) {
    this.url = url;
    this.user = user;
    this.password = password;
  }

  @Override
  public Connection getConnection() throws SQLException {
    return user == null
        ? DriverManager.getConnection(url)
        : DriverManager.getConnection(url, user, password);
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return DriverManager.getConnection(url, username, password);
  }

  @Override
  public PrintWriter getLogWriter() {
    return null;
  }

  @Override
  public void setLogWriter(PrintWriter out) {}

  @Override
  public void setLoginTimeout(int seconds) {}

  @Override
  public int getLoginTimeout() {
    return 0;
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    throw new SQLException("not a wrapper");
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) {
    return false;
  }
}
