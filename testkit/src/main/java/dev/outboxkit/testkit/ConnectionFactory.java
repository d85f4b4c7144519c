package dev.outboxkit.testkit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/** Opens unpooled administrative connections (create/drop databases). */
@FunctionalInterface
public interface ConnectionFactory {
  /** Opens a new connection; the caller closes it. */
  Connection open() throws SQLException;

  /** A factory over {@link DriverManager}. */
  static ConnectionFactory of(String url, String user, String password) {
    return () -> DriverManager.getConnection(url, user, password);
  }
}
