package dev.outboxkit.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;

/** Where a component's statements come from: the dialect of the connection's database. */
@FunctionalInterface
interface SqlSource {
  /** The statements for the database behind this connection, on the component's table. */
  OutboxSql sql(Connection c) throws SQLException;
}
