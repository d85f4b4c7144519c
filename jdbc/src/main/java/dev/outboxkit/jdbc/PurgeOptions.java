package dev.outboxkit.jdbc;

import dev.outboxkit.OutboxConfigurationException;
import java.time.Duration;

/**
 * The options of the builders that purge in batches on connections of their own: {@link
 * OutboxAdmin.Builder} and {@link Inbox.Builder}. Package-private: its setters appear on each
 * builder as the builder's own.
 *
 * @param <B> the builder the setters return
 */
abstract class PurgeOptions<B extends PurgeOptions<B>> extends TableOptions<B> {
  private static final int MAX_PURGE_BATCH_SIZE = 100_000;

  int purgeBatchSize = OutboxAdmin.DEFAULT_PURGE_BATCH_SIZE;
  Duration statementTimeout = OutboxAdmin.DEFAULT_STATEMENT_TIMEOUT;

  PurgeOptions(String defaultTable) {
    super(defaultTable);
  }

  /**
   * Sets the rows per purge transaction: each deletes at most this many, so each transaction, its
   * locks and its undo stay short while relays, writers and consumers work on the same table.
   *
   * @param purgeBatchSize 1 to 100,000; default {@value OutboxAdmin#DEFAULT_PURGE_BATCH_SIZE}
   * @return this builder
   */
  public B purgeBatchSize(int purgeBatchSize) {
    if (purgeBatchSize < 1 || purgeBatchSize > MAX_PURGE_BATCH_SIZE) {
      throw new OutboxConfigurationException(
          "purgeBatchSize must be between 1 and "
              + MAX_PURGE_BATCH_SIZE
              + ", was "
              + purgeBatchSize);
    }
    this.purgeBatchSize = purgeBatchSize;
    return self();
  }

  /**
   * Bounds every statement run on a connection of its own (each operation of the admin, the inbox's
   * purge), and the idle time inside their transactions, on the server and on the client, as {@link
   * OutboxRelay.Builder#statementTimeout} does for the relay. ({@link Inbox#markProcessed} runs on
   * the consumer's own connection, whose settings are the consumer's.)
   *
   * @param statementTimeout the bound, positive; default {@link
   *     OutboxAdmin#DEFAULT_STATEMENT_TIMEOUT}
   * @return this builder
   */
  public B statementTimeout(Duration statementTimeout) {
    this.statementTimeout = checkedStatementTimeout(statementTimeout);
    return self();
  }
}
