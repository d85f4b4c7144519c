package dev.outboxkit.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
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
   * Runs work in one transaction: commit on success, rollback on failure. Touches the connection's
   * settings only where it must (auto-commit, when on), so a pool configured with {@code
   * autoCommit=false} costs no extra round trips.
   *
   * @param preludes statements to run first, inside the transaction (see {@link
   *     SqlDialect#beforeRelayTransaction()}); nulls are skipped
   */
  public static <T> T inTransaction(DataSource ds, Work<T> work, String... preludes)
      throws SQLException {
    try (Connection c = ds.getConnection()) {
      boolean autoCommit = c.getAutoCommit();
      try {
        if (autoCommit) {
          c.setAutoCommit(false);
        }
        for (String prelude : preludes) {
          if (prelude != null) {
            try (Statement s = c.createStatement()) {
              s.execute(prelude);
            }
          }
        }
        T result = work.run(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException | Error e) {
        rollbackQuietly(c, e);
        throw e;
      } finally {
        if (autoCommit) {
          restoreAutoCommit(c);
        }
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

  private static void restoreAutoCommit(Connection c) {
    try {
      c.setAutoCommit(true);
    } catch (SQLException ignored) {
      // The connection is broken; closing it hands it back and the pool will discard it.
    }
  }
}
