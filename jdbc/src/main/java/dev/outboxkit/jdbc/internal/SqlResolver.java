package dev.outboxkit.jdbc.internal;

import dev.outboxkit.jdbc.dialect.DialectRegistry;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one home of "the dialect named, else the one the connection's database reports", and of the
 * statements rendered for one table. Every component asks it: the relay's store, the admin, the
 * writer, the inbox.
 *
 * <ul>
 *   <li>A component that owns its data source (relay, admin) resolves once: the dialect named, or
 *       the one the first connection reports, is kept ({@link #owned}).
 *   <li>A writer or an inbox works on its callers' connections, which may belong to different
 *       databases (one default writer serves every {@code Outbox.append}): it keeps the answer per
 *       database URL ({@link #perDatabase}), and per driver connection, so that a pooled connection
 *       is asked its URL once, not on every append.
 * </ul>
 *
 * Each resolution is logged once, at DEBUG.
 */
final class SqlResolver {
  private static final Logger log = LoggerFactory.getLogger(SqlResolver.class);

  /** Databases a per-database resolver remembers before it starts over. */
  private static final int MAX_DATABASES = 64;

  private final SqlDialect named;
  private final TableName table;
  private final boolean perDatabase;
  private final OutboxSql fixed;
  private volatile OutboxSql resolved;
  private final ConcurrentHashMap<String, OutboxSql> byDatabase = new ConcurrentHashMap<>();
  // getMetaData() costs about 10 µs on Connector/J, which builds a new DatabaseMetaData per call:
  // 2 % of a one-event transaction on MariaDB. A pool hands out a new wrapper per borrow, but the
  // driver's connection under it lives on and never changes database, so it keys the answer.
  private final Map<Connection, OutboxSql> byDriverConnection =
      Collections.synchronizedMap(new WeakHashMap<>());

  private SqlResolver(SqlDialect named, TableName table, boolean perDatabase) {
    this.named = named;
    this.table = table;
    this.perDatabase = perDatabase;
    this.fixed = named == null ? null : OutboxSql.of(named, table);
  }

  /**
   * For a component with a data source of its own.
   *
   * @param named the dialect the user named, or null to detect it from the first connection
   */
  public static SqlResolver owned(SqlDialect named, TableName table) {
    return new SqlResolver(named, table, false);
  }

  /**
   * For a component that works on its callers' connections.
   *
   * @param named the dialect the user named, or null to detect it per database
   */
  public static SqlResolver perDatabase(SqlDialect named, TableName table) {
    return new SqlResolver(named, table, true);
  }

  /**
   * The statements kept so far, without asking a connection: the named dialect's, or an owned
   * resolver's once its first connection told; null before that (and always for a per-database
   * resolver without a named dialect).
   */
  public OutboxSql known() {
    return fixed != null ? fixed : resolved;
  }

  /** The statements for this connection's database. */
  public OutboxSql sql(Connection c) throws SQLException {
    if (fixed != null) {
      return fixed;
    }
    if (!perDatabase) {
      OutboxSql s = resolved;
      if (s == null) {
        s = detect(c);
        resolved = s;
      }
      return s;
    }
    Connection driverConnection = driverConnection(c);
    OutboxSql known = driverConnection == null ? null : byDriverConnection.get(driverConnection);
    if (known != null) {
      return known;
    }
    String url = String.valueOf(c.getMetaData().getURL());
    OutboxSql s = byDatabase.get(url);
    if (s == null) {
      if (byDatabase.size() >= MAX_DATABASES) {
        byDatabase.clear();
      }
      s = detect(c);
      byDatabase.put(url, s);
    }
    if (driverConnection != null) {
      byDriverConnection.put(driverConnection, s);
    }
    return s;
  }

  /**
   * The driver's connection under a pool's or container's wrapper ({@code unwrap}, which HikariCP
   * and most pools answer with it), the connection itself if it wraps nothing, or null if it will
   * not say.
   */
  private static Connection driverConnection(Connection c) {
    try {
      return c.unwrap(Connection.class);
    } catch (SQLException | RuntimeException e) {
      return null;
    }
  }

  private OutboxSql detect(Connection c) throws SQLException {
    SqlDialect d = DialectRegistry.detect(c);
    log.debug("table {}: dialect {} detected", table.qualified(), d.name());
    return OutboxSql.of(d, table);
  }
}
