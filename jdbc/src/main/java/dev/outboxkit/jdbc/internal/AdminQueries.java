package dev.outboxkit.jdbc.internal;

import dev.outboxkit.jdbc.CancelOutcome;
import dev.outboxkit.jdbc.DeadFilter;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
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
        Instant occurredAt,
        String destination,
        Instant diedAt);
  }

  /** Builds the admin's value of one group of the backlog from {@link Statements#LIVE_GROUPS}. */
  @FunctionalInterface
  public interface GroupRow<T> {
    /**
     * @param heldSince when the group's first held event's destination was met down, or null
     * @param heldUntil the latest end of its held events' holds, or null
     */
    T of(
        String destination,
        String eventType,
        String tenant,
        long events,
        long notDue,
        long held,
        Instant heldSince,
        Instant heldUntil,
        Instant oldest);
  }

  /** Builds the admin's value of one relay holding leases from {@link Statements#LEASE_HOLDERS}. */
  @FunctionalInterface
  public interface HolderRow<T> {
    T of(String owner, long events, Instant firstUntil, Instant lastUntil);
  }

  /** Builds the admin's throughput value. */
  @FunctionalInterface
  public interface ThroughputRow<T> {
    /**
     * @param published per destination, null for the default one
     */
    T of(Duration window, boolean complete, Map<String, Long> published);
  }

  /** Bounds of an open time range that every database's time column holds. */
  private static final Instant EARLIEST = Instant.parse("1970-01-02T00:00:00Z");

  private static final Instant LATEST = Instant.parse("9000-01-01T00:00:00Z");

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
          try (Query q = Query.prepare(c, s, Statements.LIST_DEAD)) {
            q.setLong("after", afterSeq).setInt("limit", limit);
            return deadRows(q, s, row);
          }
        });
  }

  private static <T> List<T> deadRows(Query q, OutboxSql s, DeadRow<T> row) throws SQLException {
    List<T> page = new ArrayList<>();
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
                s.dialect().getInstant(rs, "occurred_at"),
                rs.getString("destination"),
                s.dialect().getInstant(rs, "published_at")));
      }
    }
    return page;
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

  /** {@return up to {@code limit} groups of the next {@code sample} PENDING rows, largest first} */
  public <T> List<T> backlog(int sample, int limit, GroupRow<T> row) {
    return query(
        "read the backlog",
        (c, s) -> {
          List<T> groups = new ArrayList<>();
          try (Query q = Query.prepare(c, s, Statements.LIVE_GROUPS)) {
            q.setString("note_prefix", HoldNote.PREFIX + "%")
                .setInt("sample", sample)
                .setInt("limit", limit);
            try (ResultSet rs = q.executeQuery()) {
              while (rs.next()) {
                groups.add(
                    row.of(
                        rs.getString("destination"),
                        rs.getString("event_type"),
                        rs.getString("tenant"),
                        rs.getLong("n"),
                        rs.getLong("not_due"),
                        rs.getLong("held"),
                        HoldNote.since(rs.getString("first_note")),
                        s.dialect().getInstant(rs, "held_until"),
                        s.dialect().getInstant(rs, "oldest")));
              }
            }
          }
          return groups;
        });
  }

  /** {@return up to {@code limit} relays holding IN_FLIGHT rows, the busiest first} */
  public <T> List<T> leaseHolders(int limit, HolderRow<T> row) {
    return query(
        "read the lease holders",
        (c, s) -> {
          List<T> holders = new ArrayList<>();
          try (Query q = Query.prepare(c, s, Statements.LEASE_HOLDERS)) {
            q.setInt("limit", limit);
            try (ResultSet rs = q.executeQuery()) {
              while (rs.next()) {
                holders.add(
                    row.of(
                        rs.getString("lease_owner"),
                        rs.getLong("n"),
                        s.dialect().getInstant(rs, "first_until"),
                        s.dialect().getInstant(rs, "last_until")));
              }
            }
          }
          return holders;
        });
  }

  /** {@return the events published per destination within the window, among the newest rows} */
  public <T> T recentThroughput(Duration window, int rows, ThroughputRow<T> row) {
    return query(
        "read the recent throughput",
        (c, s) -> {
          Map<String, Long> published = new HashMap<>();
          long read = 0;
          boolean reachedBefore = false;
          try (Query q = Query.prepare(c, s, Statements.RECENT_PUBLISHED)) {
            q.setLong("window", Micros.of(window)).setInt("limit", rows);
            try (ResultSet rs = q.executeQuery()) {
              while (rs.next()) {
                read += rs.getLong("n");
                reachedBefore |= rs.getLong("before_window") > 0;
                long n = rs.getLong("published");
                if (n > 0) {
                  published.put(rs.getString("destination"), n);
                }
              }
            }
          }
          return row.of(window, read < rows || reachedBefore, published);
        });
  }

  /** {@return up to {@code limit} DEAD rows after {@code afterSeq} that the filter matches} */
  public <T> List<T> listDead(DeadFilter filter, long afterSeq, int limit, DeadRow<T> row) {
    return query(
        "list DEAD events",
        (c, s) -> {
          try (Query q = Query.prepare(c, s, Statements.FIND_DEAD)) {
            bindFilter(q.setLong("after", afterSeq).setInt("limit", limit), filter);
            return deadRows(q, s, row);
          }
        });
  }

  /** Binds a filter's criteria: each one left unset matches every value. */
  private static void bindFilter(Query q, DeadFilter filter) throws SQLException {
    q.setInt("any_destination", filter.destination().isPresent() ? 0 : 1)
        .setString("destination", filter.destination().orElse(""))
        .setInt("any_event_type", filter.eventType().isPresent() ? 0 : 1)
        .setString("event_type", filter.eventType().orElse(""))
        .setInt("any_aggregate_type", filter.aggregateType().isPresent() ? 0 : 1)
        .setString("aggregate_type", filter.aggregateType().orElse(""))
        .setInt("any_aggregate_id", filter.aggregateId().isPresent() ? 0 : 1)
        .setString("aggregate_id", filter.aggregateId().orElse(""))
        .setInstant("dead_from", filter.diedFrom().orElse(EARLIEST))
        .setInstant("dead_to", filter.diedBefore().orElse(LATEST));
  }

  /** {@return the row with this id, headers and payload included} */
  public <T> Optional<T> find(UUID id, Function<StoredRows.Row, T> row) {
    return query(
        "find event " + id,
        (c, s) -> {
          try (Query q = Query.prepare(c, s, Statements.FIND_EVENT)) {
            q.setUuid("id", id);
            try (ResultSet rs = q.executeQuery()) {
              return rs.next()
                  ? Optional.of(row.apply(StoredRows.read(rs, s.dialect(), true, true)))
                  : Optional.empty();
            }
          }
        });
  }

  /** {@return up to {@code limit} unfinished rows of one aggregate, in order, with headers} */
  public <T> List<T> liveOfAggregate(
      String aggregateType, String aggregateId, int limit, Function<StoredRows.Row, T> row) {
    return query(
        "read the events of aggregate " + aggregateType + "/" + aggregateId,
        (c, s) -> {
          List<T> events = new ArrayList<>();
          try (Query q = Query.prepare(c, s, Statements.LIVE_OF_AGGREGATE)) {
            q.setString("aggregate_type", aggregateType)
                .setString("aggregate_id", aggregateId)
                .setInt("limit", limit);
            try (ResultSet rs = q.executeQuery()) {
              while (rs.next()) {
                events.add(row.apply(StoredRows.read(rs, s.dialect(), true, false)));
              }
            }
          }
          return events;
        });
  }

  /** {@return how many of these rows were DEAD and went back to PENDING} One transaction. */
  public int replayDead(List<Long> seqs) {
    return updateSeqs("replay DEAD events", Statements.REPLAY_DEAD_SEQS, seqs);
  }

  /** {@return how many of these rows were DEAD and were deleted} One transaction. */
  public int discardDead(List<Long> seqs) {
    return updateSeqs("discard DEAD events", Statements.DISCARD_DEAD_SEQS, seqs);
  }

  private int updateSeqs(String what, Statement statement, List<Long> seqs) {
    if (seqs.isEmpty()) {
      return 0;
    }
    return query(
        what,
        (c, s) -> {
          int changed = 0;
          for (int from = 0; from < seqs.size(); from += Query.MAX_LIST) {
            List<Long> chunk = seqs.subList(from, Math.min(seqs.size(), from + Query.MAX_LIST));
            try (Query q = Query.prepare(c, s, statement, chunk.size())) {
              changed += q.setSeqs("seqs", chunk).executeUpdate();
            }
          }
          return changed;
        });
  }

  /** {@return the database's clock} */
  public Instant databaseNow() {
    return query("read the database clock", AdminQueries::databaseNow);
  }

  private static Instant databaseNow(Connection c, OutboxSql s) throws SQLException {
    try (Query q = Query.prepare(c, s, Statements.DATABASE_NOW);
        ResultSet rs = q.executeQuery()) {
      rs.next();
      return s.dialect().getInstant(rs, "db_now");
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
