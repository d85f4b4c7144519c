package dev.outboxkit.jdbc.internal;

import dev.outboxkit.jdbc.dialect.ErrorCodes;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * Bounds the time of every transaction OutboxKit runs on connections it borrows (relay, admin,
 * inbox purge), from one setting, the statement timeout:
 *
 * <ul>
 *   <li>on the server, each statement, each lock wait and the idle time between statements (the
 *       dialect's {@link Statements#BOUND_TRANSACTION}): a relay whose network path died (no FIN,
 *       no RST: a dropped NAT entry, a firewall failover, a paused VM) right after its claim ran
 *       would otherwise hold that claim's row locks for as long as the server keeps the session,
 *       hours with default keepalive, and leases cannot help a claim that never committed;
 *   <li>on the client, every wait for the server's answer ({@link Connection#setNetworkTimeout}), a
 *       little longer than the statement limit, so the server's own cancel normally comes first and
 *       leaves the connection usable; when the network timeout fires the driver has given up on the
 *       connection, and it is {@linkplain Connection#abort aborted} so no pool hands it out again.
 * </ul>
 *
 * <p>Drivers' own query timeouts ({@code Statement.setQueryTimeout}) are not used: pgjdbc and
 * Connector/J run them on timer threads of their own (outside a container's managed threads) and
 * cancel over a second connection, which a dead network path does not carry either.
 */
final class TimeBound {
  /**
   * Runs the drivers' network-timeout bookkeeping on the calling thread (Connector/J hands it to
   * the executor), so that the bound starts no thread.
   */
  private static final Executor CALLING_THREAD = Runnable::run;

  /**
   * How much longer than the statement limit, rounded up to whole seconds, the client waits for an
   * answer. Rounded up, because some servers bound lock waits in whole seconds (InnoDB's
   * innodb_lock_wait_timeout) and notice the end of a wait only on their next once-a-second check:
   * the server's own error must come first, leaving the connection usable.
   */
  private static final Duration NETWORK_MARGIN = Duration.ofSeconds(2);

  private final Duration statementTimeout;
  private final String millis;
  private final int networkMillis;
  private final SqlSource dialects;
  private volatile boolean networkTimeoutUnsupported;

  /** The error codes of the dialect last seen, for {@link #connectionLost}. */
  private volatile ErrorCodes errors;

  /**
   * @param statementTimeout the limit, positive
   * @param dialects the dialect of the connections this bound applies to; null for none of the
   *     server-side bounds
   */
  public TimeBound(Duration statementTimeout, SqlSource dialects) {
    this.statementTimeout = statementTimeout;
    this.millis = Long.toString(Math.max(1, statementTimeout.toMillis()));
    long wholeSeconds = (Math.max(1, statementTimeout.toMillis()) + 999) / 1000;
    this.networkMillis =
        (int) Math.min(Integer.MAX_VALUE, wholeSeconds * 1000 + NETWORK_MARGIN.toMillis());
    this.dialects = dialects;
  }

  /** The same bound on the client only, for work that runs no statement of its own. */
  TimeBound networkOnly() {
    return new TimeBound(statementTimeout, null);
  }

  /** The statement limit. */
  public Duration statementTimeout() {
    return statementTimeout;
  }

  /** The longest wait for one answer of the server: the statement limit and a margin. */
  public Duration networkTimeout() {
    return Duration.ofMillis(networkMillis);
  }

  /**
   * Sets the connection's network timeout.
   *
   * @return the timeout it had, for {@link #restoreNetworkTimeout}; -1 where the driver has none
   */
  int limitNetwork(Connection c) {
    if (networkTimeoutUnsupported) {
      return -1;
    }
    try {
      int previous = c.getNetworkTimeout();
      c.setNetworkTimeout(CALLING_THREAD, networkMillis);
      return previous;
    } catch (SQLFeatureNotSupportedException
        | UnsupportedOperationException
        | AbstractMethodError e) {
      // An in-process database has no network; a pool or driver older than JDBC 4.1 has no such
      // method. The server-side bounds still apply.
      networkTimeoutUnsupported = true;
      return -1;
    } catch (SQLException e) {
      // A wrapper that refuses it for this connection: the first statement tells whether the
      // connection itself is broken.
      return -1;
    }
  }

  /** Gives the connection back its own network timeout; a broken connection is left as it is. */
  static void restoreNetworkTimeout(Connection c, int previous) {
    if (previous < 0) {
      return;
    }
    try {
      c.setNetworkTimeout(CALLING_THREAD, previous);
    } catch (SQLException ignored) {
      // Broken meanwhile: the pool discards it.
    }
  }

  /** Runs the dialect's server-side bound, first in the transaction. */
  void enter(Connection c) throws SQLException {
    if (dialects == null) {
      return;
    }
    OutboxSql s = dialects.sql(c);
    errors = s.dialect().errors();
    if (!s.has(Statements.BOUND_TRANSACTION)) {
      return;
    }
    try (Query q = Query.prepare(c, s, Statements.BOUND_TRANSACTION)) {
      q.setString("timeout_ms", millis).execute();
    }
  }

  /** Undoes what {@link #enter} set beyond the transaction, after it ended. */
  void leave(Connection c) {
    if (dialects == null) {
      return;
    }
    try {
      String sql = dialects.sql(c).optional(Statements.UNBOUND_TRANSACTION);
      if (sql != null) {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
          ps.execute();
        }
      }
    } catch (SQLException ignored) {
      // Broken meanwhile: the pool discards it, session variables and all.
    }
  }

  /** Aborts a connection the driver gave up on, so that no pool lends it out again. */
  static void abort(Connection c, SQLException cause) {
    try {
      c.abort(CALLING_THREAD);
    } catch (SQLException | RuntimeException e) {
      cause.addSuppressed(e);
    }
  }

  /**
   * True when the failure means the connection is gone or unusable: a network timeout, a cut
   * connection (SQL state class 08), a server that ended the session (the dialect's {@link
   * ErrorCodes.Kind#LOST_CONNECTION} codes, such as PostgreSQL's shutdown and idle-in-transaction
   * timeout). A cancelled statement (a statement or lock timeout) leaves the connection usable and
   * is not one.
   *
   * @param bound the transaction's bound, whose dialect's codes count; null for class 08 only
   */
  static boolean connectionLost(TimeBound bound, SQLException e) {
    if (e instanceof SQLNonTransientConnectionException
        || e instanceof SQLTransientConnectionException) {
      return true;
    }
    String state = e.getSQLState();
    if (state != null && state.startsWith("08")) {
      return true;
    }
    ErrorCodes codes = bound == null ? null : bound.errors;
    return codes != null && codes.is(ErrorCodes.Kind.LOST_CONNECTION, e);
  }
}
