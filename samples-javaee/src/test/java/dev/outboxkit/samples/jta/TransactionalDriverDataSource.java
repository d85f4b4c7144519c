package dev.outboxkit.samples.jta;

import com.arjuna.ats.jdbc.TransactionalDriver;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;
import javax.sql.DataSource;
import javax.sql.XADataSource;

/**
 * Narayana's {@link TransactionalDriver} as a {@link DataSource}: each connection wraps one of the
 * XA data source's and is enlisted in the calling thread's JTA transaction, if there is one. Such a
 * connection reports auto-commit on, even while enlisted.
 */
final class TransactionalDriverDataSource implements DataSource {
  private final TransactionalDriver driver = new TransactionalDriver();
  private final XADataSource xa;
  private final String name;

  TransactionalDriverDataSource(XADataSource xa, String name) {
    this.xa = xa;
    this.name = name;
  }

  @Override
  public Connection getConnection() throws SQLException {
    Properties properties = new Properties();
    properties.put(TransactionalDriver.XADataSource, xa);
    return driver.connect(TransactionalDriver.arjunaDriver + name, properties);
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    throw new SQLFeatureNotSupportedException("the XA data source carries the credentials");
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
  public <T> T unwrap(Class<T> type) throws SQLException {
    if (type.isInstance(this)) {
      return type.cast(this);
    }
    throw new SQLException("not a wrapper of " + type.getName());
  }

  @Override
  public boolean isWrapperFor(Class<?> type) {
    return type.isInstance(this);
  }
}
