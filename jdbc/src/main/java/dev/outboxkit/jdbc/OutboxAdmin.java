package dev.outboxkit.jdbc;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import dev.outboxkit.jdbc.internal.BatchedDelete;
import dev.outboxkit.jdbc.internal.OutboxSql;
import dev.outboxkit.jdbc.internal.Query;
import dev.outboxkit.jdbc.internal.RetentionSweep;
import dev.outboxkit.jdbc.internal.SqlResolver;
import dev.outboxkit.jdbc.internal.Statement;
import dev.outboxkit.jdbc.internal.Statements;
import dev.outboxkit.jdbc.internal.TableCheck;
import dev.outboxkit.jdbc.internal.TableName;
import dev.outboxkit.jdbc.internal.TimeBound;
import dev.outboxkit.jdbc.internal.Transactions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Operations on the outbox table: counts, the age of the oldest waiting event, and handling of
 * quarantined (DEAD) events and old finished rows. Safe to use while relays run. Thread-safe.
 *
 * <pre>{@code
 * OutboxAdmin admin = OutboxAdmin.create(dataSource);
 * for (DeadEvent dead : admin.listDead(0, 50)) { ... }
 * admin.replay(deadEventId);                    // back to PENDING, attempts reset
 * admin.purgeFinished(Duration.ofDays(7));      // in small batches
 * }</pre>
 *
 * <p>Each call runs its own short transaction on a connection from the data source, so the data
 * source must not enlist connections in a JTA transaction of the calling thread: a call that finds
 * itself inside one fails with {@link dev.outboxkit.OutboxConfigurationException} before it ran any
 * statement.
 */
public final class OutboxAdmin {
  /** Rows deleted per transaction by {@link #purgeFinished} by default: {@value}. */
  public static final int DEFAULT_PURGE_BATCH_SIZE = 1000;

  /**
   * Longest time of one statement of the admin (and of the idle time in its transactions) by
   * default: 30 s, room for counting a large table.
   */
  public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(30);

  private final DataSource ds;
  private final TableName table;
  private final int purgeBatchSize;
  private final TimeBound bound;
  private final SqlResolver resolver;
  private final SqlDialect named;

  private OutboxAdmin(Builder b) {
    this.ds = b.dataSource;
    this.table = b.table;
    this.named = b.dialect;
    this.resolver = SqlResolver.owned(b.dialect, table);
    this.purgeBatchSize = b.purgeBatchSize;
    this.bound = new TimeBound(b.statementTimeout, this::sql);
  }

  /**
   * {@return an admin for {@code outbox_event}, dialect detected on first use}
   *
   * @param dataSource where the table lives; each operation borrows and returns a connection
   */
  public static OutboxAdmin create(DataSource dataSource) {
    return builder(dataSource).build();
  }

  /**
   * {@return a builder, for another table, dialect or purge batch size}
   *
   * @param dataSource where the table lives; each operation borrows and returns a connection
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(dataSource);
  }

  /**
   * {@return the rows per status, every status present (zero if none)} Counts the whole table, a
   * full scan on large tables: for an operator's look, not for metrics polling (use {@link
   * #snapshot()}).
   */
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

  /**
   * {@return the number of rows in one status} Index-driven for PENDING, IN_FLIGHT and DEAD, so
   * cheap enough to poll for metrics whatever the number of PUBLISHED rows.
   *
   * @param status the status to count
   */
  public long count(EventStatus status) {
    Objects.requireNonNull(status, "status");
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

  /**
   * {@return how long the oldest PENDING event (the first by append order) has waited since it
   * occurred, by the database clock; empty when nothing is pending} The one figure that shows a
   * relay that stopped or cannot keep up.
   */
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

  /**
   * {@return the figures to watch, read in one statement: PENDING, IN_FLIGHT and DEAD counts and
   * the age of the oldest PENDING event} Each figure is read from an index that holds only live
   * rows (the partial indexes on PostgreSQL, the {@code (status, ...)} indexes elsewhere), so the
   * cost grows with the backlog, never with the number of PUBLISHED rows: cheap enough to poll for
   * metrics. The Micrometer binding polls it at a configurable interval.
   */
  public OutboxSnapshot snapshot() {
    return query(
        "read the outbox snapshot",
        (c, s) -> {
          try (Query q = Query.prepare(c, s, Statements.SNAPSHOT);
              ResultSet rs = q.executeQuery()) {
            rs.next();
            Instant oldest = s.dialect().getInstant(rs, "oldest");
            Instant now = s.dialect().getInstant(rs, "db_now");
            return new OutboxSnapshot(
                rs.getLong("pending"),
                rs.getLong("in_flight"),
                rs.getLong("dead"),
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

  /**
   * A page of DEAD events in table order.
   *
   * @param afterSeq 0 for the first page, else the {@link DeadEvent#seq()} of the last one seen
   * @param limit page size (1 to 1000)
   * @return up to {@code limit} DEAD events with a larger {@code seq}; empty after the last page
   */
  public List<DeadEvent> listDead(long afterSeq, int limit) {
    if (limit < 1 || limit > 1000) {
      throw new IllegalArgumentException("limit must be between 1 and 1000, was " + limit);
    }
    return query(
        "list DEAD events",
        (c, s) -> {
          List<DeadEvent> page = new ArrayList<>();
          try (Query q = Query.prepare(c, s, Statements.LIST_DEAD)) {
            q.setLong("after", afterSeq).setInt("limit", limit);
            try (ResultSet rs = q.executeQuery()) {
              while (rs.next()) {
                page.add(
                    new DeadEvent(
                        rs.getLong("seq"),
                        s.dialect().getUuid(rs, "id"),
                        rs.getString("aggregate_type"),
                        rs.getString("aggregate_id"),
                        rs.getString("event_type"),
                        rs.getInt("attempts"),
                        rs.getString("last_error"),
                        s.dialect().getInstant(rs, "occurred_at")));
              }
            }
          }
          return page;
        });
  }

  /**
   * Sends a DEAD event again: back to PENDING, available now, attempts reset. In ordered mode its
   * aggregate resumes behind it.
   *
   * @param eventId the id of the DEAD event, e.g. from {@link #listDead}
   * @return false if no DEAD event has this id
   */
  public boolean replay(UUID eventId) {
    return updateById("replay DEAD event " + eventId, eventId, true) == 1;
  }

  /**
   * Replays every DEAD event, e.g. after fixing the consumer or endpoint that rejected them. In one
   * statement: fine for the usual handful, heavy for a very large DEAD set.
   *
   * @return how many events went back to PENDING
   */
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
   * Deletes a DEAD event for good; in ordered mode its aggregate moves on without it.
   *
   * @param eventId the id of the DEAD event, e.g. from {@link #listDead}
   * @return false if no DEAD event has this id
   */
  public boolean discard(UUID eventId) {
    return updateById("discard DEAD event " + eventId, eventId, false) == 1;
  }

  /**
   * Deletes PUBLISHED and EXPIRED rows that finished longer ago than the retention, walking the
   * primary key in small transactions (each reads {@code purgeBatchSize} rows, deletes those past
   * retention and locks only them) so relays and appenders are never held up. PENDING, IN_FLIGHT
   * and DEAD rows are never touched. For scheduled retention beside running relays, see {@link
   * OutboxRelay.Builder#retention(Duration)}.
   *
   * @param retention how long finished rows are kept, e.g. for audits or to answer "was it sent?"
   * @return rows deleted
   */
  public long purgeFinished(Duration retention) {
    if (retention == null || retention.isNegative()) {
      throw new IllegalArgumentException("retention must be zero or positive, was " + retention);
    }
    try {
      return new RetentionSweep(
              ds, "OutboxAdmin.purgeFinished", bound, this::sql, purgeBatchSize, 0)
          .purge(retention, null, () -> false);
    } catch (SQLException e) {
      throw new OutboxStorageException("purge finished events", table.qualified(), e);
    }
  }

  private int updateById(String what, UUID eventId, boolean replay) {
    Objects.requireNonNull(eventId, "eventId");
    return query(
        what,
        (c, s) -> {
          Statement st = replay ? Statements.REPLAY_DEAD : Statements.DISCARD_DEAD;
          try (Query q = Query.prepare(c, s, st)) {
            return q.setUuid("id", eventId).executeUpdate();
          }
        });
  }

  @FunctionalInterface
  private interface Work<T> {
    T run(Connection c, OutboxSql sql) throws SQLException;
  }

  private <T> T query(String what, Work<T> query) {
    try {
      return Transactions.inOwnTransaction(
          ds, "OutboxAdmin (" + what + ")", bound, c -> query.run(c, sql(c)));
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

  private OutboxSql sql(Connection c) throws SQLException {
    return resolver.sql(c);
  }

  /** Configures an {@link OutboxAdmin}. */
  public static final class Builder {
    private final DataSource dataSource;
    private TableName table = TableName.of(TableName.DEFAULT);
    private SqlDialect dialect;
    private int purgeBatchSize = DEFAULT_PURGE_BATCH_SIZE;
    private Duration statementTimeout = DEFAULT_STATEMENT_TIMEOUT;

    private Builder(DataSource dataSource) {
      this.dataSource = OutboxConfigurationException.requireNonNull(dataSource, "dataSource");
    }

    /**
     * Administers this table instead of {@code outbox_event}.
     *
     * @param table {@code name} or {@code schema.name}, a plain SQL identifier
     * @return this builder
     */
    public Builder table(String table) {
      this.table = TableName.of(table);
      return this;
    }

    /**
     * Uses this dialect instead of detecting it from the first connection.
     *
     * @param dialect the database's dialect
     * @return this builder
     */
    public Builder dialect(Dialect dialect) {
      return dialect(OutboxConfigurationException.requireNonNull(dialect, "dialect").preset());
    }

    /**
     * Uses this dialect, a preset ({@link Dialect#preset()}) or one of your own, instead of
     * detecting it.
     *
     * @param dialect the database's dialect
     * @return this builder
     */
    public Builder dialect(SqlDialect dialect) {
      this.dialect = OutboxConfigurationException.requireNonNull(dialect, "dialect");
      return this;
    }

    /**
     * Sets the rows per purge transaction: each reads this many rows of the primary key and deletes
     * those past retention, so each transaction, its locks and its undo stay short while relays and
     * writers work on the same table.
     *
     * @param purgeBatchSize 1 to 100,000; default {@value OutboxAdmin#DEFAULT_PURGE_BATCH_SIZE}
     * @return this builder
     */
    public Builder purgeBatchSize(int purgeBatchSize) {
      this.purgeBatchSize = BatchedDelete.checkBatchSize(purgeBatchSize);
      return this;
    }

    /**
     * Bounds every statement of the admin, and the idle time inside its transactions, on the server
     * and on the client, as {@link OutboxRelay.Builder#statementTimeout} does for the relay.
     *
     * @param statementTimeout the bound, positive; default {@link
     *     OutboxAdmin#DEFAULT_STATEMENT_TIMEOUT}
     * @return this builder
     */
    public Builder statementTimeout(Duration statementTimeout) {
      this.statementTimeout = TimeBound.checked(statementTimeout);
      return this;
    }

    /** {@return the immutable, thread-safe admin} */
    public OutboxAdmin build() {
      return new OutboxAdmin(this);
    }
  }
}
