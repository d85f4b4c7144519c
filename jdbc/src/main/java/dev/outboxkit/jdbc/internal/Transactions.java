package dev.outboxkit.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Runs short transactions on connections OutboxKit borrows from a {@link DataSource} (never on a
 * caller's connection), giving each connection back with the settings it came with.
 */
public final class Transactions {
  private Transactions() {}

  /** Work done inside one transaction. */
  @FunctionalInterface
  public interface Work<T> {
    /** Does the work on the connection; the caller commits. */
    T run(Connection connection) throws SQLException;
  }

  /**
   * Runs work in one transaction: commit on success, rollback on failure.
   *
   * @param readCommitted run at READ COMMITTED (see {@link SqlDialect#relayNeedsReadCommitted()})
   */
  public static <T> T inTransaction(DataSource ds, boolean readCommitted, Work<T> work)
      throws SQLException {
    try (Connection c = ds.getConnection()) {
      boolean autoCommit = c.getAutoCommit();
      int isolation = c.getTransactionIsolation();
      try {
        if (readCommitted && isolation != Connection.TRANSACTION_READ_COMMITTED) {
          c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
        if (autoCommit) {
          c.setAutoCommit(false);
        }
        T result = work.run(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException | Error e) {
        rollbackQuietly(c, e);
        throw e;
      } finally {
        restore(c, autoCommit, isolation);
      }
    }
  }

  private static void rollbackQuietly(Connection c, Throwable failure) {
    try {
      c.rollback();
    } catch (SQLException rollbackFailure) {
      failure.addSuppressed(rollbackFailure);
    }
  }

  private static void restore(Connection c, boolean autoCommit, int isolation) {
    try {
      if (c.getTransactionIsolation() != isolation) {
        c.setTransactionIsolation(isolation);
      }
      if (autoCommit) {
        c.setAutoCommit(true);
      }
    } catch (SQLException ignored) {
      // The connection is broken; closing it hands it back and the pool will discard it.
    }
  }
}
