package dev.outboxkit.jdbc.internal;

import dev.outboxkit.internal.LogText;
import dev.outboxkit.jdbc.Inbox;
import dev.outboxkit.jdbc.InboxGapException;
import dev.outboxkit.jdbc.dialect.ErrorCodes;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * {@code Inbox}'s way into the SQL layer: records a processed pair on the consumer's connection
 * ({@link Statements#INBOX_INSERT}), judges an event against its aggregate's last applied version
 * (the {@code inboxVersion*} statements, on the version table), and purges old pairs in batches.
 * Public only because the inbox lives in the parent package.
 */
public final class InboxRows {
  /**
   * Times the version row is made and looked for before giving up: it goes missing between the two
   * only if someone deletes it meanwhile.
   */
  private static final int VERSION_ROW_TRIES = 3;

  private final TableName table;
  private final TableName versionTable;
  private final boolean strictStart;
  // The dialect the user named, or null: a failed insert is checked against the database's own.
  private final SqlDialect named;
  private final SqlResolver resolver;
  private final SqlResolver versions;
  private final TimeBound purgeBound;
  private final int purgeBatchSize;

  /**
   * @param named the dialect the user named, or null to detect it per connection
   * @param versionTable the ordering guard's table of last applied versions
   * @param strictStart whether an aggregate not seen yet expects version 1
   * @param statementTimeout bounds the purge
   * @param purgeBatchSize checked where it was set
   */
  public InboxRows(
      SqlDialect named,
      TableName table,
      TableName versionTable,
      boolean strictStart,
      Duration statementTimeout,
      int purgeBatchSize) {
    this.table = table;
    this.versionTable = versionTable;
    this.strictStart = strictStart;
    this.named = named;
    this.resolver = SqlResolver.perDatabase(named, table);
    this.versions = SqlResolver.perDatabase(named, versionTable);
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

  /**
   * The ordering guard, in the connection's transaction; the arguments are checked by {@code
   * Inbox}. The event id goes in first: a duplicate is answered without touching the version row,
   * and the insert sees the latest committed pairs whatever the transaction's snapshot (a read
   * might not, under MySQL's REPEATABLE READ). An event held back, or failed, on a gap has its pair
   * deleted again, so it leaves nothing behind.
   */
  public Inbox.Verdict accept(
      Connection c,
      String consumer,
      UUID eventId,
      String aggregateType,
      String aggregateId,
      long version,
      Inbox.OnGap onGap)
      throws SQLException {
    if (!insert(c, consumer, eventId)) {
      return Inbox.Verdict.DUPLICATE;
    }
    long last = lockAndRecord(c, consumer, aggregateType, aggregateId, version, onGap);
    Inbox.Verdict verdict = judge(last, version);
    if (verdict == Inbox.Verdict.GAP && onGap != Inbox.OnGap.APPLY) {
      forget(c, consumer, eventId);
      if (onGap == Inbox.OnGap.FAIL) {
        throw new InboxGapException(
            consumer, aggregateType, aggregateId, eventId, last + 1, version);
      }
    }
    // A STALE event's pair stays too: its redelivery is a duplicate.
    return verdict;
  }

  /**
   * Makes the aggregate's version row unless present, locks it, and sets the version if the event
   * is to be applied.
   *
   * @return the last applied version before this event, 0 for none
   */
  private long lockAndRecord(
      Connection c,
      String consumer,
      String aggregateType,
      String aggregateId,
      long version,
      Inbox.OnGap onGap)
      throws SQLException {
    OutboxSql s = versions.sql(c);
    try {
      for (int tries = 0; tries < VERSION_ROW_TRIES; tries++) {
        create(c, s, consumer, aggregateType, aggregateId);
        try (Query lock = Query.prepare(c, s, Statements.INBOX_VERSION_LOCK)) {
          lock.setString("consumer", consumer)
              .setString("aggregate_type", aggregateType)
              .setString("aggregate_id", aggregateId);
          try (ResultSet rs = lock.executeQuery()) {
            if (!rs.next()) {
              continue; // deleted between the two statements: make it again
            }
            long last = rs.getLong("version");
            Inbox.Verdict verdict = judge(last, version);
            if (verdict == Inbox.Verdict.NEW
                || (verdict == Inbox.Verdict.GAP && onGap == Inbox.OnGap.APPLY)) {
              // Set while the result set is open: the shipped databases hold the row lock to the
              // end of the transaction, but Derby keeps a FOR UPDATE read's update lock only while
              // its cursor is on the row.
              set(c, s, consumer, aggregateType, aggregateId, version);
            }
            return last;
          }
        }
      }
    } catch (SQLException e) {
      throw TableCheck.explainInboxVersion(e, c, named, table, versionTable);
    }
    throw new SQLException(
        "the row of aggregate "
            + LogText.escape(aggregateType)
            + "/"
            + LogText.escape(aggregateId)
            + " in "
            + versionTable.qualified()
            + " was gone each time right after it was made: is something deleting rows of this"
            + " table?");
  }

  /**
   * Version 0 is a row just made: no version applied yet, so any version is the first, unless the
   * start is strict.
   */
  private Inbox.Verdict judge(long last, long version) {
    if ((last == 0 && !strictStart) || version == last + 1) {
      return Inbox.Verdict.NEW;
    }
    return version <= last ? Inbox.Verdict.STALE : Inbox.Verdict.GAP;
  }

  private static void create(
      Connection c, OutboxSql s, String consumer, String aggregateType, String aggregateId)
      throws SQLException {
    try (Query q = Query.prepare(c, s, Statements.INBOX_VERSION_CREATE)) {
      q.setString("consumer", consumer)
          .setString("aggregate_type", aggregateType)
          .setString("aggregate_id", aggregateId)
          .executeUpdate();
    } catch (SQLException e) {
      // A concurrent first delivery of the aggregate made the row (H2, Derby: a statement error
      // that leaves the transaction usable); the lock that follows waits for it.
      if (!s.dialect().errors().is(ErrorCodes.Kind.DUPLICATE_KEY, e)) {
        throw e;
      }
    }
  }

  private static void set(
      Connection c,
      OutboxSql s,
      String consumer,
      String aggregateType,
      String aggregateId,
      long version)
      throws SQLException {
    try (Query q = Query.prepare(c, s, Statements.INBOX_VERSION_SET)) {
      q.setLong("version", version)
          .setString("consumer", consumer)
          .setString("aggregate_type", aggregateType)
          .setString("aggregate_id", aggregateId)
          .executeUpdate();
    }
  }

  private void forget(Connection c, String consumer, UUID eventId) throws SQLException {
    OutboxSql s = resolver.sql(c);
    try (Query q = Query.prepare(c, s, Statements.INBOX_DELETE)) {
      q.setString("consumer", consumer).setUuid("event_id", eventId).executeUpdate();
    } catch (SQLException e) {
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
