package dev.outboxkit.jdbc;

import dev.outboxkit.jdbc.internal.InboxRows;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The consumer side of exactly-once effects: delivery is at least once, so a consumer records each
 * event id it processed in the same transaction as the effect, and skips ids it has seen.
 *
 * <pre>{@code
 * Inbox inbox = Inbox.create();
 * try (Connection c = dataSource.getConnection()) {
 *   c.setAutoCommit(false);
 *   if (inbox.markProcessed(c, "billing", eventId)) {
 *     applyEffect(c, payload);            // first time: do the work
 *   }
 *   c.commit();                           // effect and inbox row commit together
 * }
 * }</pre>
 *
 * <p>If the transaction rolls back, the inbox row goes with it and a redelivery is processed again.
 * Two deliveries of one event racing in two transactions are serialised by the primary key: the
 * second waits for the first and then sees it as processed (or, if the first rolled back, processes
 * it). The event id comes from the {@code id} Kafka header, the {@code outbox_event_id} JMS
 * property or the {@code webhook-id} HTTP header (each transport has a helper to read it). Create
 * the table with {@link OutboxSchema#createInbox(Connection)}. Immutable and thread-safe.
 */
public final class Inbox {
  /** Default table name: {@value}. */
  public static final String DEFAULT_TABLE = "outbox_inbox";

  /** Longest consumer name: {@value} characters. */
  public static final int MAX_CONSUMER_LENGTH = 200;

  private final InboxRows rows;

  private Inbox(Builder b) {
    this.rows = new InboxRows(b.dialect, b.table, b.statementTimeout, b.purgeBatchSize);
  }

  /** {@return an inbox on {@code outbox_inbox}, dialect detected per connection} */
  public static Inbox create() {
    return builder().build();
  }

  /** {@return a builder, for another table or an explicit dialect} */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Records that {@code consumer} processed {@code eventId}, in the connection's transaction.
   *
   * @param connection the consumer's connection, auto-commit off; used, never committed or closed
   * @param consumer names the consuming service or handler (1 to 200 characters), so several
   *     consumers of one event each process it once
   * @param eventId the event id from the message
   * @return true the first time (apply the effect), false if already processed (skip it)
   * @throws IllegalStateException if the connection is in auto-commit mode: the record would commit
   *     apart from the effect
   * @throws SQLException if the insert fails; the caller's transaction is then in the state the
   *     driver left it, so roll it back
   */
  public boolean markProcessed(Connection connection, String consumer, UUID eventId)
      throws SQLException {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(eventId, "eventId");
    if (consumer == null || consumer.isBlank() || consumer.length() > MAX_CONSUMER_LENGTH) {
      throw new IllegalArgumentException(
          "consumer must be 1 to " + MAX_CONSUMER_LENGTH + " characters, was '" + consumer + "'");
    }
    if (connection.getAutoCommit()) {
      throw new IllegalStateException(
          "the connection is in auto-commit mode, so the inbox record would commit apart from the"
              + " effect it guards: call connection.setAutoCommit(false) and commit both together");
    }
    return rows.insert(connection, consumer, eventId);
  }

  /**
   * Deletes inbox rows older than the retention, in small transactions of their own. Keep the
   * retention longer than any redelivery can take (lease expiry plus retry backoff).
   *
   * @param dataSource where the inbox table lives; each batch borrows and returns a connection
   * @param retention how old a row must be to go
   * @return rows deleted
   */
  public long purgeOlderThan(DataSource dataSource, Duration retention) {
    Objects.requireNonNull(dataSource, "dataSource");
    return rows.purgeOlderThan(dataSource, retention);
  }

  /** Configures an {@link Inbox}. */
  public static final class Builder extends PurgeOptions<Builder> {

    private Builder() {
      super(DEFAULT_TABLE);
    }

    /** {@return the immutable, thread-safe inbox} */
    public Inbox build() {
      return new Inbox(this);
    }

    @Override
    Builder self() {
      return this;
    }
  }
}
