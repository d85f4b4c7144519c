package dev.outboxkit.jdbc.dialect;

import java.sql.DatabaseMetaData;
import java.sql.SQLException;

/**
 * Recognises a database from its metadata and gives its dialect. Register one with {@link
 * DialectRegistry#register}, or list it in {@code
 * META-INF/services/dev.outboxkit.jdbc.dialect.DialectProvider} to have it found by {@link
 * java.util.ServiceLoader}.
 */
@Beta
@FunctionalInterface
public interface DialectProvider {
  /**
   * Recognises a database.
   *
   * @param metadata the connection's metadata; read it, run no statement
   * @return the dialect of this database, or null if it is not one this provider knows
   * @throws SQLException if the metadata cannot be read
   */
  SqlDialect dialectFor(DatabaseMetaData metadata) throws SQLException;
}
