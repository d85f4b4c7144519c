package dev.outboxkit.testing.jdbc;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source that, once stalled, holds every caller of {@code getConnection} until released: a
 * relay stopped between its send and its acknowledgement (a long GC pause, an exhausted pool), so
 * its lease runs out by the database clock while the relay still means to record its outcome.
 */
final class StallableDataSource implements DataSource {
  private final DataSource delegate;
  private final Duration longest;
  private final CountDownLatch released = new CountDownLatch(1);
  private volatile boolean stalled;

  /**
   * @param delegate the data source handed out once released
   * @param longest how long a caller is held at most, so a failed test leaves no thread behind
   */
  StallableDataSource(DataSource delegate, Duration longest) {
    this.delegate = delegate;
    this.longest = longest;
  }

  /** Holds every later {@code getConnection} until {@link #release()}. */
  void stall() {
    stalled = true;
  }

  /** Lets the held callers, and every later one, through. */
  void release() {
    stalled = false;
    released.countDown();
  }

  private void waitIfStalled() throws SQLException {
    if (!stalled) {
      return;
    }
    try {
      if (!released.await(longest.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new SQLException("stalled data source was not released within " + longest);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SQLException("interrupted while stalled", e);
    }
  }

  @Override
  public Connection getConnection() throws SQLException {
    waitIfStalled();
    return delegate.getConnection();
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    waitIfStalled();
    return delegate.getConnection(username, password);
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return delegate.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    delegate.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    delegate.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return delegate.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return delegate.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return delegate.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return delegate.isWrapperFor(iface);
  }
}
