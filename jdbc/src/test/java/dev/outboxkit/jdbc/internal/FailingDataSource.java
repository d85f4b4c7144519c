package dev.outboxkit.jdbc.internal;

import dev.outboxkit.testkit.ConnectionSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;

/** Real H2 connections, except that the next {@code n} requests fail with a given SQL state. */
final class FailingDataSource extends ConnectionSource {
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
}
