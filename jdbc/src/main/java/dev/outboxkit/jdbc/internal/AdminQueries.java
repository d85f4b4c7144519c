package dev.outboxkit.jdbc.internal;

import dev.outboxkit.jdbc.CancelOutcome;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxStorageException;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * {@code OutboxAdmin}'s way into the SQL layer: each operation runs in a short transaction of its
 * own on a connection of the data source, and a failure says what went wrong in the caller's terms
 * (a missing table, a wrong dialect). Public only because the admin lives in the parent package;
 * the values the admin returns are built there, from the columns read here.
 */
public final class AdminQueries {
  /** Builds the admin's snapshot value from the columns of {@link Statements#SNAPSHOT}. */
  @FunctionalInterface
  public interface SnapshotRow<T> {
    /**
     * @param oldestPendingAge null when nothing is pending
     * @param readAt the database's clock when the figures were read
     */
    T of(
        long pending,
        long inFlight,
        long dead,
        long cancelled,
        long superseded,
        Duration oldestPendingAge,
        Instant readAt);
  }

  /**
   * Builds the admin's value of one DEAD event from the columns of {@link Statements#LIST_DEAD}.
   */
  @FunctionalInterface
  public interface DeadRow<T> {
    /** One DEAD row, its columns in table order. */
    T of(
        long seq,
        UUID id,
        String aggregateType,
        String aggregateId,
        String eventType,
        int attempts,
        int uncertainSends,
        String lastError,
        Instant occurredAt);
  }

  private final DataSource ds;
  private final TableName table;
  private final SqlDialect named;
  private final SqlResolver resolver;
  private final TimeBound bound;
  private final int purgeBatchSize;

  /**
   * @param named the dialect the user named, or null to detect it from the first connection
   * @param statementTimeout checked where it was set
   * @param purgeBatchSize checked where it was set
   */
  public AdminQueries(
      DataSource ds,
      SqlDialect named,
      TableName table,
      Duration statementTimeout,
      int purgeBatchSize) {
    this.ds = ds;
    this.table = table;
    this.named = named;
    this.resolver = SqlResolver.owned(named, table);
    this.bound = new TimeBound(statementTimeout, resolver::sql);
    this.purgeBatchSize = purgeBatchSize;
  }

  /** {@return the rows per status, every status present} */
  public Map<EventStatus, Long> countByStatus() {
    return query(
        "count events by status",
        (c, s) -> {
          Map<EventStatus, Long> counts = new EnumMap<>(EventStatus.class);
          for (EventStatus status : EventStatus.values()) {
            counts.put(status, 0L);
          }
          try (Query q = Query.prepare(c, s, Statements.COUNT_BY_STATUS);
              ResultSet rs = q.executeQuery()) {
            while (rs.next()) {
              counts.put(EventStatus.valueOf(rs.getString("status")), rs.getLong("n"));
            }
          }
          return counts;
        });
  }

  /** {@return the rows in one status} */
  public long count(EventStatus status) {
    return query(
        "count " + status + " events",
        (c, s) -> {
          try (Query q = Query.prepare(c, s, Statements.COUNT_STATUS)) {
            q.setString("status", status.name());
            try (ResultSet rs = q.executeQuery()) {
              rs.next();
              return rs.getLong(1);
            }
          }
        });
  }

  /** {@return how long the oldest PENDING event has waited, by the database clock} */
  public Optional<Duration> oldestPendingAge() {
    return query(
        "read the oldest pending event",
        (c, s) -> {
          try (Query q = Query.prepare(c, s, Statements.OLDEST_PENDING);
              ResultSet rs = q.executeQuery()) {
            rs.next();
            Instant oldest = s.dialect().getInstant(rs, "oldest");
            Instant now = s.dialect().getInstant(rs, "db_now");
            return oldest == null ? Optional.empty() : Optional.of(Duration.between(oldest, now));
          }
        });
  }

  /** {@return the live figures, read in one statement} */
  public <T> T snapshot(SnapshotRow<T> row) {
    return query(
        "read the outbox snapshot",
        (c, s) -> {
          try (Query q = Query.prepare(c, s, Statements.SNAPSHOT);
              ResultSet rs = q.executeQuery()) {
            rs.next();
            Instant oldest = s.dialect().getInstant(rs, "oldest");
            Instant now = s.dialect().getInstant(rs, "db_now");
            return row.of(
                rs.getLong("pending"),
                rs.getLong("in_flight"),
                rs.getLong("dead"),
                rs.getLong("cancelled"),
                rs.getLong("superseded"),
                oldest == null ? null : age(oldest, now),
                now);
          }
        });
  }

  /** Zero, not negative, when the appending host's clock ran ahead of the database's. */
  private static Duration age(Instant occurredAt, Instant now) {
    Duration age = Duration.between(occurredAt, now);
    return age.isNegative() ? Duration.ZERO : age;
  }

  /** {@return up to {@code limit} DEAD events after {@code afterSeq}, in table order} */
  public <T> List<T> listDead(long afterSeq, int limit, DeadRow<T> row) {
    return query(
        "list DEAD events",
        (c, s) -> {
          List<T> page = new ArrayList<>();
          try (Query q = Query.prepare(c, s, Statements.LIST_DEAD)) {
            q.setLong("after", afterSeq).setInt("limit", limit);
            try (ResultSet rs = q.executeQuery()) {
              while (rs.next()) {
                page.add(
                    row.of(
                        rs.getLong("seq"),
                        s.dialect().getUuid(rs, "id"),
                        rs.getString("aggregate_type"),
                        rs.getString("aggregate_id"),
                        rs.getString("event_type"),
                        rs.getInt("attempts"),
                        rs.getInt("uncertain_sends"),
                        rs.getString("last_error"),
                        s.dialect().getInstant(rs, "occurred_at")));
              }
            }
          }
          return page;
        });
  }

  /** {@return whether a DEAD event with this id went back to PENDING} */
  public boolean replay(UUID eventId) {
    return updateById("replay DEAD event " + eventId, Statements.REPLAY_DEAD, eventId);
  }

  /** {@return whether a DEAD event with this id was deleted} */
  public boolean discard(UUID eventId) {
    return updateById("discard DEAD event " + eventId, Statements.DISCARD_DEAD, eventId);
  }

  private boolean updateById(String what, Statement statement, UUID eventId) {
    return query(
        what,
        (c, s) -> {
          try (Query q = Query.prepare(c, s, statement)) {
            return q.setUuid("id", eventId).executeUpdate() == 1;
          }
        });
  }

  /** {@return what cancelling one event found} In a transaction of its own. */
  public CancelOutcome cancel(UUID eventId, String reason) {
    return query("cancel event " + eventId, (c, s) -> Withdrawals.cancel(c, s, eventId, reason));
  }

  /** {@return what cancelling an aggregate's waiting events did} In a transaction of its own. */
  public <T> T cancelAggregate(
      String aggregateType, String aggregateId, String reason, Appends.CancelTally<T> tally) {
    return query(
        "cancel the events of aggregate " + aggregateType + "/" + aggregateId,
        (c, s) -> Withdrawals.cancelAggregate(c, s, aggregateType, aggregateId, reason, tally));
  }

  /** {@return how many DEAD events went back to PENDING} In one statement. */
  public int replayAllDead() {
    return query(
        "replay all DEAD events",
        (c, s) -> {
          try (Query q = Query.prepare(c, s, Statements.REPLAY_ALL_DEAD)) {
            return q.executeUpdate();
          }
        });
  }

  /**
   * {@return the finished (PUBLISHED, EXPIRED, CANCELLED, SUPERSEDED) rows deleted} They finished
   * longer ago than the retention.
   */
  public long purgeFinished(Duration retention) {
    try {
      return new RetentionSweep(
              ds, "OutboxAdmin.purgeFinished", bound, resolver::sql, purgeBatchSize, 0)
          .purge(retention, null, () -> false);
    } catch (SQLException e) {
      throw new OutboxStorageException("purge finished events", table.qualified(), e);
    }
  }

  @FunctionalInterface
  private interface Work<T> {
    T run(Connection c, OutboxSql sql) throws SQLException;
  }

  private <T> T query(String what, Work<T> query) {
    try {
      return Transactions.inOwnTransaction(
          ds, "OutboxAdmin (" + what + ")", bound, c -> query.run(c, resolver.sql(c)));
    } catch (SQLException e) {
      throw new OutboxStorageException(what, table.qualified(), explain(e));
    }
  }

  /**
   * A missing table or a wrong dialect is said as such, with what to do, asking a fresh
   * connection's metadata, for the failures {@link TableCheck#worthExplaining} picks.
   */
  private SQLException explain(SQLException e) {
    if (!TableCheck.worthExplaining(e, named)) {
      return e;
    }
    try (Connection c = ds.getConnection()) {
      return TableCheck.explain(e, c, named, table);
    } catch (SQLException unreachable) {
      e.addSuppressed(unreachable);
      return e;
    }
  }
}
