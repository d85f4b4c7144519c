package dev.outboxkit.jdbc.internal;

import dev.outboxkit.OutboxConfigurationException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * Runs short transactions on connections OutboxKit borrows from a {@link DataSource} (never on a
 * caller's connection), giving each connection back with the settings it came with.
 */
final class Transactions {
  private Transactions() {}

  /** Work done inside one transaction. */
  @FunctionalInterface
  public interface Work<T> {
    /** Does the work on the connection; the caller commits. */
    T run(Connection connection) throws SQLException;
  }

  /**
   * Runs work in one transaction: commit on success, rollback on failure. Touches the connection's
   * settings only where it must (auto-commit, when on; the network timeout), so a pool configured
   * with {@code autoCommit=false} costs no extra round trips for it.
   *
   * @param bound the time bound of every statement and wait in the transaction
   * @param preludes statements to run first, inside the transaction (see {@link
   *     Statements#BEFORE_RELAY_TRANSACTION}); nulls are skipped
   */
  public static <T> T inTransaction(
      DataSource ds, TimeBound bound, Work<T> work, String... preludes) throws SQLException {
    return run(ds, null, bound, work, preludes);
  }

  /**
   * Like {@link #inTransaction}, for work called on the application's own thread, which may be
   * inside a JTA transaction: first checks that the borrowed connection is not enlisted in one.
   *
   * @param operation what the application called, for the error, e.g. {@code "OutboxAdmin.replay"}
   * @throws OutboxConfigurationException before any statement ran, if the connection takes part in
   *     a JTA transaction
   */
  public static <T> T inOwnTransaction(
      DataSource ds, String operation, TimeBound bound, Work<T> work) throws SQLException {
    return run(ds, operation, bound, work);
  }

  /**
   * Checks, before anything is claimed, that connections from this data source are not enlisted in
   * a JTA transaction of the calling thread; see {@link #inOwnTransaction}.
   */
  public static void refuseJtaTransaction(DataSource ds, String operation, TimeBound bound)
      throws SQLException {
    // The probe's only round trip is Connector/J's COMMIT: the network timeout is bound enough.
    run(ds, operation, bound.networkOnly(), c -> null);
  }

  private static <T> T run(
      DataSource ds, String probeFor, TimeBound bound, Work<T> work, String... preludes)
      throws SQLException {
    try (Connection c = ds.getConnection()) {
      int networkTimeout = bound == null ? -1 : bound.limitNetwork(c);
      boolean autoCommit = c.getAutoCommit();
      boolean bounded = false;
      boolean lost = false;
      try {
        if (autoCommit) {
          c.setAutoCommit(false);
        }
        if (probeFor != null) {
          refuseEnlisted(c, probeFor);
        }
        for (String prelude : preludes) {
          if (prelude != null) {
            try (Statement s = c.createStatement()) {
              s.execute(prelude);
            }
          }
        }
        if (bound != null) {
          bounded = true;
          bound.enter(c);
        }
        T result = work.run(c);
        c.commit();
        return result;
      } catch (SQLException e) {
        lost = TimeBound.connectionLost(bound, e);
        if (lost) {
          // The driver gave up on it (a network timeout, a cut connection): never reuse it.
          TimeBound.abort(c, e);
        } else {
          rollbackQuietly(c, e);
        }
        throw e;
      } catch (RuntimeException | Error e) {
        rollbackQuietly(c, e);
        throw e;
      } finally {
        if (!lost) {
          if (bounded) {
            bound.leave(c);
          }
          if (autoCommit) {
            restoreAutoCommit(c);
          }
          TimeBound.restoreNetworkTimeout(c, networkTimeout);
        }
      }
    }
  }

  /**
   * Commits the empty transaction just begun. Outside JTA that does nothing (no round trip on
   * pgjdbc or the MariaDB driver, one {@code COMMIT} on Connector/J); on a connection enlisted in a
   * JTA transaction every pool refuses it (Agroal: "Attempting to commit while taking part in a
   * transaction", Narayana's TransactionalDriver: ARJUNA017009), whatever auto-commit reports — so
   * OutboxKit fails here, before it changed a row, instead of at its own commit afterwards.
   */
  private static void refuseEnlisted(Connection c, String operation) throws SQLException {
    try {
      c.commit();
    } catch (SQLException e) {
      if (e.getSQLState() != null) {
        // The database answered (a lost connection, say: Connector/J does send this COMMIT): a
        // storage failure like any other. The pools' JTA refusals carry no SQL state.
        throw e;
      }
      throw new OutboxConfigurationException(
          operation
              + " cannot commit its own short transactions on a connection from this DataSource:"
              + " committing an empty transaction failed before anything was done, so the"
              + " connection is most likely enlisted in the caller's active JTA transaction ("
              + e.getMessage()
              + "). Give OutboxRelay and OutboxAdmin a DataSource that is not JTA-managed (in a"
              + " container: a non-JTA data source, e.g. <jta-data-source> vs"
              + " <non-jta-data-source>, JtaManaged=false, or a plain pool), or call them outside a"
              + " JTA transaction (@TransactionAttribute(NOT_SUPPORTED)). Outbox.append is the"
              + " call that belongs inside your JTA transaction.",
          e);
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
