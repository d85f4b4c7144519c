package dev.outboxkit.jdbc;

import dev.outboxkit.InvalidEventException;
import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.internal.EventValidation;
import dev.outboxkit.internal.LogText;
import dev.outboxkit.jdbc.internal.InboxRows;
import dev.outboxkit.jdbc.internal.TableName;
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
 *
 * <h2>Ordering guard</h2>
 *
 * Given the aggregate and its version after the event ({@code OutboxEvent.aggregateVersion()}),
 * {@link #accept accept} also says whether the event is the next one of its aggregate, keeping the
 * last applied version per consumer and aggregate in a second table ({@code outbox_inbox_version}),
 * in the same transaction:
 *
 * <pre>{@code
 * switch (inbox.accept(c, "billing", eventId, "Order", orderId, version, Inbox.OnGap.HOLD)) {
 *   case NEW:       applyEffect(c, payload); c.commit(); break;
 *   case DUPLICATE: // processed before
 *   case STALE:     c.commit(); break;          // at or below the last applied version: skip it
 *   case GAP:       c.rollback(); redeliverLater(); break; // a version before it has not come
 * }
 * }</pre>
 *
 * <table>
 *   <caption>What accept answers and records</caption>
 *   <tr><th>the event</th><th>answer</th><th>recorded</th></tr>
 *   <tr><td>its id already processed by this consumer</td><td>{@link Verdict#DUPLICATE}</td>
 *       <td>nothing</td></tr>
 *   <tr><td>the first of its aggregate this consumer sees, whatever its version (unless {@link
 *       Builder#strictStart})</td><td>{@link Verdict#NEW}</td><td>id and version</td></tr>
 *   <tr><td>version = last applied + 1</td><td>{@link Verdict#NEW}</td><td>id and version</td></tr>
 *   <tr><td>version &le; last applied</td><td>{@link Verdict#STALE}</td>
 *       <td>id (a redelivery is a DUPLICATE)</td></tr>
 *   <tr><td>version &gt; last applied + 1, {@link OnGap#APPLY}</td><td>{@link Verdict#GAP}</td>
 *       <td>id and version (the missing ones will be STALE)</td></tr>
 *   <tr><td>version &gt; last applied + 1, {@link OnGap#HOLD}</td><td>{@link Verdict#GAP}</td>
 *       <td>nothing</td></tr>
 *   <tr><td>version &gt; last applied + 1, {@link OnGap#FAIL}</td>
 *       <td>throws {@link InboxGapException}</td><td>nothing</td></tr>
 * </table>
 *
 * <p>Deliveries of one aggregate to one consumer wait for each other on its version row (locked by
 * primary key, until the transaction ends), so concurrent consumers apply its versions one at a
 * time, in order.
 */
public final class Inbox {
  /** Default table name: {@value}. */
  public static final String DEFAULT_TABLE = "outbox_inbox";

  /**
   * Default version table of the ordering guard: {@value}. An inbox table of another name has its
   * version table named after it, {@code <table>_version}, unless {@link Builder#versionTable}
   * names one.
   */
  public static final String DEFAULT_VERSION_TABLE = DEFAULT_TABLE + "_version";

  /** Longest consumer name: {@value} characters. */
  public static final int MAX_CONSUMER_LENGTH = 200;

  private static final String VERSION_SUFFIX = "_version";

  private final InboxRows rows;

  private Inbox(Builder b, TableName versionTable) {
    this.rows =
        new InboxRows(
            b.dialect, b.table, versionTable, b.strictStart, b.statementTimeout, b.purgeBatchSize);
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
    checkConsumer(consumer);
    checkTransaction(connection);
    return rows.insert(connection, consumer, eventId);
  }

  /**
   * Judges one event of an aggregate against the last version {@code consumer} applied of it, and
   * records it as the {@linkplain Inbox table above} says, in the connection's transaction: the
   * records commit or roll back with the effect. The event id is checked first: an id already
   * processed is a {@link Verdict#DUPLICATE}, whatever its version. An aggregate this consumer has
   * not seen takes its first event as {@link Verdict#NEW} whatever its version, as there is no
   * history to judge it by (a consumer that starts mid-stream begins where it joins); with {@link
   * Builder#strictStart} it expects version 1.
   *
   * <p>Deliveries of one aggregate to one consumer are serialised: this call waits for another
   * transaction that accepted an event of the same aggregate until that one ends, then judges by
   * what it committed. Under PostgreSQL's REPEATABLE READ or SERIALIZABLE such a wait ends in a
   * serialization failure instead: roll back and deliver again. Accepting events of several
   * aggregates in one transaction locks each aggregate's row in turn: take them in one order
   * everywhere, or one per transaction, so that two such transactions cannot deadlock.
   *
   * @param connection the consumer's connection, auto-commit off; used, never committed or closed
   * @param consumer names the consuming service or handler (1 to 200 characters)
   * @param eventId the event id from the message
   * @param aggregateType the aggregate's type, as on the event (1 to {@link
   *     dev.outboxkit.OutboxEvent#MAX_FIELD_LENGTH} characters)
   * @param aggregateId the aggregate's id, as on the event (likewise)
   * @param version the aggregate's version after the event ({@code
   *     OutboxEvent.aggregateVersion()}), 1 or more
   * @param onGap what a version past the next one means: apply it, hold it back, or fail
   * @return {@link Verdict#NEW} or {@link Verdict#GAP} (with {@link OnGap#APPLY}): apply the
   *     effect; {@link Verdict#DUPLICATE} or {@link Verdict#STALE}: skip it; {@link Verdict#GAP}
   *     (with {@link OnGap#HOLD}): do not apply it, and have it redelivered later
   * @throws InboxGapException on a gap with {@link OnGap#FAIL}; nothing was recorded
   * @throws dev.outboxkit.InvalidEventException if the aggregate type or id is null, blank, too
   *     long or not storable, or the version is below 1
   * @throws IllegalArgumentException if the consumer name is blank or too long
   * @throws IllegalStateException if the connection is in auto-commit mode
   * @throws SQLException if a statement fails (a missing table is said as such, with the DDL to
   *     run); roll the transaction back
   */
  public Verdict accept(
      Connection connection,
      String consumer,
      UUID eventId,
      String aggregateType,
      String aggregateId,
      long version,
      OnGap onGap)
      throws SQLException {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(onGap, "onGap");
    checkConsumer(consumer);
    EventValidation.name("aggregateType", aggregateType);
    EventValidation.name("aggregateId", aggregateId);
    if (version < 1) {
      throw new InvalidEventException(
          "version",
          "version must be 1 or more, was "
              + version
              + ": pass the aggregate's version after the event, as"
              + " OutboxEvent.aggregateVersion() numbers it from 1");
    }
    checkTransaction(connection);
    return rows.accept(connection, consumer, eventId, aggregateType, aggregateId, version, onGap);
  }

  private static void checkConsumer(String consumer) {
    if (consumer == null || consumer.isBlank() || consumer.length() > MAX_CONSUMER_LENGTH) {
      throw new IllegalArgumentException(
          "consumer must be 1 to "
              + MAX_CONSUMER_LENGTH
              + " characters, was '"
              + (consumer == null ? null : LogText.escape(consumer))
              + "'");
    }
  }

  private static void checkTransaction(Connection connection) throws SQLException {
    if (connection.getAutoCommit()) {
      throw new IllegalStateException(
          "the connection is in auto-commit mode, so the inbox record would commit apart from the"
              + " effect it guards: call connection.setAutoCommit(false) and commit both together");
    }
  }

  /** {@return the version table of {@code table}: its name followed by {@code _version}} */
  static TableName versionTableOf(TableName table) {
    try {
      return TableName.of(table.qualified() + VERSION_SUFFIX);
    } catch (OutboxConfigurationException e) {
      throw new OutboxConfigurationException(
          "the inbox table name '"
              + table.qualified()
              + "' is too long to name its version table '"
              + table.qualified()
              + VERSION_SUFFIX
              + "' after it (at most 50 characters): name the version table with"
              + " Inbox.Builder.versionTable(...) and OutboxSchema.createInbox(connection,"
              + " table, versionTable, dialect)",
          e);
    }
  }

  /**
   * Deletes inbox rows older than the retention, in small transactions of their own. Keep the
   * retention longer than any redelivery can take (lease expiry plus retry backoff).
   *
   * <p>The version table of the ordering guard is not purged: its row per consumer and aggregate is
   * what makes a late event of the aggregate {@link Verdict#STALE} (also once its id has been
   * purged here), and without it that event would count as {@link Verdict#NEW}. Delete the rows of
   * aggregates that are gone for good yourself.
   *
   * @param dataSource where the inbox table lives; each batch borrows and returns a connection
   * @param retention how old a row must be to go
   * @return rows deleted
   */
  public long purgeOlderThan(DataSource dataSource, Duration retention) {
    Objects.requireNonNull(dataSource, "dataSource");
    return rows.purgeOlderThan(dataSource, retention);
  }

  /** What {@link #accept} answers. */
  public enum Verdict {
    /** The next version of its aggregate (or the first this consumer sees): apply the effect. */
    NEW,
    /** This consumer processed this event id before: skip it. */
    DUPLICATE,
    /** At or below the last version applied of its aggregate: skip it. Its id is recorded. */
    STALE,
    /**
     * Past the next version of its aggregate: one or more versions between have not arrived. With
     * {@link OnGap#APPLY} it was recorded (apply the effect); with {@link OnGap#HOLD} nothing was.
     */
    GAP
  }

  /** What a version past the next one means to the consumer, chosen per call of {@link #accept}. */
  public enum OnGap {
    /**
     * Apply it anyway: its id and version are recorded and {@link Verdict#GAP} says that versions
     * were skipped; the skipped ones, should they come later, are {@link Verdict#STALE}.
     */
    APPLY,
    /**
     * Hold it back: nothing is recorded and {@link Verdict#GAP} is answered; roll back (or commit
     * nothing of it) and have the event redelivered later, when the missing versions may have come.
     */
    HOLD,
    /** Fail: nothing is recorded and {@link InboxGapException} is thrown. */
    FAIL
  }

  /** Configures an {@link Inbox}. */
  public static final class Builder extends PurgeOptions<Builder> {
    // The version table named with versionTable(...), or null for <table>_version.
    private TableName versionTable;
    private boolean strictStart;

    private Builder() {
      super(DEFAULT_TABLE);
    }

    /**
     * Keeps the ordering guard's versions ({@link Inbox#accept}) in this table instead of the inbox
     * table's name followed by {@code _version} ({@value Inbox#DEFAULT_VERSION_TABLE} for the
     * default inbox). Create it with {@link OutboxSchema#createInbox(Connection, String, String,
     * dev.outboxkit.jdbc.dialect.SqlDialect)}.
     *
     * @param versionTable {@code name} or {@code schema.name}, a plain SQL identifier
     * @return this builder
     * @throws OutboxConfigurationException if it is not one
     */
    public Builder versionTable(String versionTable) {
      this.versionTable = TableName.of(versionTable);
      return this;
    }

    /**
     * Whether an aggregate this consumer has not seen yet expects version 1. By default (false) its
     * first event is {@link Verdict#NEW} whatever its version, as there is no history to judge it
     * by: right for a consumer that joins a stream already under way. Set true for a consumer that
     * sees every aggregate from its start: a first event past version 1 is then a {@link
     * Verdict#GAP}, handled as the call's {@link OnGap} says.
     *
     * @param strictStart true to expect version 1 first; default false
     * @return this builder
     */
    public Builder strictStart(boolean strictStart) {
      this.strictStart = strictStart;
      return this;
    }

    /**
     * {@return the immutable, thread-safe inbox}
     *
     * @throws OutboxConfigurationException if the inbox table's name is too long to name its
     *     version table after it and none was named, or the version table is the inbox table
     */
    public Inbox build() {
      if (versionTable != null && versionTable.qualified().equals(table.qualified())) {
        throw new OutboxConfigurationException(
            "versionTable and table are both '"
                + table.qualified()
                + "': the ordering guard's versions need a table of their own");
      }
      return new Inbox(this, versionTable != null ? versionTable : versionTableOf(table));
    }

    @Override
    Builder self() {
      return this;
    }
  }
}
