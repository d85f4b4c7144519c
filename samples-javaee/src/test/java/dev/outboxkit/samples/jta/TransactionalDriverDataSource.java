package dev.outboxkit.samples.jta;

import com.arjuna.ats.jdbc.TransactionalDriver;
import dev.outboxkit.testkit.ConnectionSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import javax.sql.DataSource;
import javax.sql.XADataSource;

/**
 * Narayana's {@link TransactionalDriver} as a {@link DataSource}: each connection wraps one of the
 * XA data source's and is enlisted in the calling thread's JTA transaction, if there is one. Such a
 * connection reports auto-commit on, even while enlisted.
 */
final class TransactionalDriverDataSource extends ConnectionSource {
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
}
