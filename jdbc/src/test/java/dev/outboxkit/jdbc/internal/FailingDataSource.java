package dev.outboxkit.jdbc.internal;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;

/** Real H2 connections, except that the next {@code n} requests fail with a given SQL state. */
final class FailingDataSource implements DataSource {
  final String url = "jdbc:h2:mem:deadlock-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";
  private final AtomicInteger failures = new AtomicInteger();
  final AtomicInteger calls = new AtomicInteger();
  private volatile String state;
  private volatile int vendorCode;

  void failNext(int n, String sqlState) {
    failNext(n, sqlState, 0);
  }

  /** As {@link #failNext(int, String)}, with a vendor error code. */
  void failNext(int n, String sqlState, int code) {
    state = sqlState;
    vendorCode = code;
    failures.set(n);
    calls.set(0);
  }

  @Override
  public Connection getConnection() throws SQLException {
    calls.incrementAndGet();
    if (failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new SQLException("injected failure", state, vendorCode);
    }
    return DriverManager.getConnection(url);
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    return getConnection();
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
