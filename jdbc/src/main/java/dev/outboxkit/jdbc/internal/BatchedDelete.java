package dev.outboxkit.jdbc.internal;

import dev.outboxkit.jdbc.OutboxStorageException;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Deletes old inbox rows ({@link Statements#INBOX_PURGE}) in small transactions, one batch each,
 * until a batch comes back short: locks stay brief, so relays, appenders and consumers are never
 * held up for long.
 */
final class BatchedDelete {
  private BatchedDelete() {}

  /**
   * Runs the batches.
   *
   * @param caller the public method the application called, e.g. {@code Inbox.purgeOlderThan}
   * @param what for error messages, e.g. "purge the inbox"
   * @param retention rows older than this go; zero or positive
   * @return rows deleted
   */
  public static long run(
      DataSource ds,
      String caller,
      String what,
      String table,
      Duration retention,
      int batchSize,
      TimeBound bound,
      SqlSource statements) {
    if (retention == null || retention.isNegative()) {
      throw new IllegalArgumentException("retention must be zero or positive, was " + retention);
    }
    long micros = Micros.of(retention);
    long total = 0;
    int deleted;
    do {
      try {
        deleted =
            Transactions.inOwnTransaction(
                ds,
                caller,
                bound,
                c -> {
                  try (Query q = Query.prepare(c, statements.sql(c), Statements.INBOX_PURGE)) {
                    return q.setLong("age", micros).setInt("limit", batchSize).executeUpdate();
                  }
                });
      } catch (SQLException e) {
        throw new OutboxStorageException(what, table, e);
      }
      total += deleted;
      // A database whose purge cannot limit its DELETE may take a few more rows than asked (those
      // of the last instant): a batch that full means more may be left.
    } while (deleted >= batchSize);
    return total;
  }
}
