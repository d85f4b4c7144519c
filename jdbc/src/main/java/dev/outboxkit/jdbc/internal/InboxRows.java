package dev.outboxkit.jdbc.internal;

import dev.outboxkit.jdbc.dialect.ErrorCodes;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * {@code Inbox}'s way into the SQL layer: records a processed pair on the consumer's connection
 * ({@link Statements#INBOX_INSERT}) and purges old pairs in batches. Public only because the inbox
 * lives in the parent package.
 */
public final class InboxRows {
  private final TableName table;
  // The dialect the user named, or null: a failed insert is checked against the database's own.
  private final SqlDialect named;
  private final SqlResolver resolver;
  private final TimeBound purgeBound;
  private final int purgeBatchSize;

  /**
   * @param named the dialect the user named, or null to detect it per connection
   * @param statementTimeout bounds the purge
   * @param purgeBatchSize checked where it was set
   */
  public InboxRows(
      SqlDialect named, TableName table, Duration statementTimeout, int purgeBatchSize) {
    this.table = table;
    this.named = named;
    this.resolver = SqlResolver.perDatabase(named, table);
    this.purgeBound = new TimeBound(statementTimeout, resolver::sql);
    this.purgeBatchSize = purgeBatchSize;
  }

  /**
   * Records the pair unless present, in the connection's transaction.
   *
   * @return true when it was new; false when present, also when a concurrent insert of the same
   *     pair won (the other side processed it)
   * @throws SQLException any other failure, a missing table or wrong dialect said as such
   */
  public boolean insert(Connection c, String consumer, UUID eventId) throws SQLException {
    OutboxSql s = resolver.sql(c);
    try (Query q = Query.prepare(c, s, Statements.INBOX_INSERT)) {
      return q.setString("consumer", consumer).setUuid("event_id", eventId).executeUpdate() == 1;
    } catch (SQLException e) {
      if (s.dialect().errors().is(ErrorCodes.Kind.DUPLICATE_KEY, e)) {
        return false;
      }
      throw TableCheck.explainInbox(e, c, named, table);
    }
  }

  /** {@return rows deleted} Rows older than the retention go, in small transactions. */
  public long purgeOlderThan(DataSource dataSource, Duration retention) {
    return BatchedDelete.run(
        dataSource,
        "Inbox.purgeOlderThan",
        "purge the inbox",
        table.qualified(),
        retention,
        purgeBatchSize,
        purgeBound,
        resolver::sql);
  }
}
