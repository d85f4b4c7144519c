package dev.outboxkit.jdbc;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.internal.EventValidation;
import dev.outboxkit.jdbc.internal.AdminQueries;
import dev.outboxkit.jdbc.internal.TableName;
import java.time.Duration;
import java.time.Instant;
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

  private final AdminQueries queries;

  private OutboxAdmin(Builder b) {
    this.queries =
        new AdminQueries(b.dataSource, b.dialect, b.table, b.statementTimeout, b.purgeBatchSize);
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
    return queries.countByStatus();
  }

  /**
   * {@return the number of rows in one status} Index-driven for PENDING, IN_FLIGHT and DEAD, so
   * cheap enough to poll for metrics whatever the number of PUBLISHED rows.
   *
   * @param status the status to count
   */
  public long count(EventStatus status) {
    Objects.requireNonNull(status, "status");
    return queries.count(status);
  }

  /**
   * {@return how long the oldest PENDING event (the first by append order) has waited since it
   * occurred, by the database clock; empty when nothing is pending} The one figure that shows a
   * relay that stopped or cannot keep up.
   */
  public Optional<Duration> oldestPendingAge() {
    return queries.oldestPendingAge();
  }

  /**
   * {@return the figures to watch, read in one statement: PENDING, IN_FLIGHT and DEAD counts and
   * the age of the oldest PENDING event} Each figure is read from an index that holds only live
   * rows (the partial indexes on PostgreSQL, the {@code (status, ...)} indexes elsewhere), so the
   * cost grows with the backlog, never with the number of PUBLISHED rows: cheap enough to poll for
   * metrics. The Micrometer binding polls it at a configurable interval.
   */
  public OutboxSnapshot snapshot() {
    return queries.snapshot(OutboxSnapshot::new);
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
    return queries.listDead(afterSeq, limit, DeadEvent::new);
  }

  /**
   * What the backlog holds: the next {@code sample} PENDING events in claim order, grouped by
   * destination, event type and tenant, the largest groups first, with how many of each are not due
   * yet and how many are held back because their destination answered that it was down (and since
   * when). Reads at most {@code sample} rows from the claim index, so the cost is bounded whatever
   * the backlog or the history; when the backlog is larger than the sample, the groups describe its
   * oldest part (compare {@link OutboxSnapshot#pending()}).
   *
   * @param sample how many PENDING events to read (1 to 100,000)
   * @param limit the most groups to return (1 to 10,000)
   * @return the groups, the largest first
   */
  public List<BacklogGroup> backlog(int sample, int limit) {
    return queries.backlog(within(sample, 100_000), within(limit, 10_000), BacklogGroup::new);
  }

  /**
   * The relays holding IN_FLIGHT events now, the busiest first: which relays are working and how
   * far their leases reach. An idle relay holds nothing and is not listed.
   *
   * @param limit the most relays to read (1 to 1000)
   * @return the relays, the busiest first
   */
  public List<LeaseHolder> leaseHolders(int limit) {
    return queries.leaseHolders(within(limit, 1000), LeaseHolder::new);
  }

  /**
   * How many events were published per destination within the last {@code window}, counted among
   * the {@code rows} newest rows by append order (a window of the primary key, so the cost is the
   * same whatever the table holds).
   *
   * @param window how far back to count, by the database clock
   * @param rows how many of the newest rows to read (1 to 100,000)
   * @return the counts per destination
   */
  public RecentThroughput recentThroughput(Duration window, int rows) {
    if (window == null || window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("window must be positive, was " + window);
    }
    return queries.recentThroughput(window, within(rows, 100_000), RecentThroughput::new);
  }

  /**
   * A page of the DEAD events a filter matches, in table order. Read from the index of DEAD rows;
   * rows the filter leaves out are skipped there, so a page costs at most the DEAD rows after
   * {@code afterSeq}.
   *
   * @param filter which DEAD events; {@link DeadFilter#all()} for every one
   * @param afterSeq 0 for the first page, else the {@link DeadEvent#seq()} of the last one seen
   * @param limit page size (1 to 1000)
   * @return up to {@code limit} matching DEAD events with a larger seq; empty after the last page
   */
  public List<DeadEvent> listDead(DeadFilter filter, long afterSeq, int limit) {
    Objects.requireNonNull(filter, "filter");
    return queries.listDead(filter, afterSeq, within(limit, 1000), DeadEvent::new);
  }

  /**
   * {@return the stored event with this id, headers and payload included; empty if the table has
   * none (never appended, or purged)}
   *
   * @param eventId the event's id
   */
  public Optional<StoredEvent> find(UUID eventId) {
    return queries.find(Objects.requireNonNull(eventId, "eventId"), StoredEvent::new);
  }

  /**
   * The events of one aggregate that are not finished (PENDING, IN_FLIGHT, DEAD), in append order,
   * with headers: what stands between the aggregate and its next delivery. Read from the aggregate
   * index. Finished events are read one at a time with {@link #find}.
   *
   * @param aggregateType the aggregate's type
   * @param aggregateId the aggregate's id
   * @param limit the most events to read (1 to 1000)
   * @return the events, in append order
   */
  public List<StoredEvent> liveEventsOf(String aggregateType, String aggregateId, int limit) {
    return queries.liveOfAggregate(
        Objects.requireNonNull(aggregateType, "aggregateType"),
        Objects.requireNonNull(aggregateId, "aggregateId"),
        within(limit, 1000),
        StoredEvent::new);
  }

  /**
   * Sends DEAD events again, as {@link #replay} does, by their seqs, in one transaction: for
   * replaying what {@link #listDead(DeadFilter, long, int)} found, a page at a time. Rows no longer
   * DEAD are left alone.
   *
   * @param seqs the events' {@link DeadEvent#seq()}s (at most 10,000)
   * @return how many went back to PENDING
   */
  public int replayDead(List<Long> seqs) {
    return queries.replayDead(seqBatch(seqs));
  }

  /**
   * Deletes DEAD events by their seqs, in one transaction. Rows no longer DEAD are left alone.
   *
   * @param seqs the events' {@link DeadEvent#seq()}s (at most 10,000)
   * @return how many were deleted
   */
  public int discardDead(List<Long> seqs) {
    return queries.discardDead(seqBatch(seqs));
  }

  /** {@return the database's clock now, which every time the relay compares is read by} */
  public Instant databaseTime() {
    return queries.databaseNow();
  }

  private static int within(int limit, int max) {
    if (limit < 1 || limit > max) {
      throw new IllegalArgumentException("limit must be between 1 and " + max + ", was " + limit);
    }
    return limit;
  }

  private static List<Long> seqBatch(List<Long> seqs) {
    Objects.requireNonNull(seqs, "seqs");
    if (seqs.size() > 10_000) {
      throw new IllegalArgumentException(
          "at most 10,000 seqs per call (one transaction), was " + seqs.size());
    }
    List<Long> copy = new java.util.ArrayList<>(seqs.size());
    for (Long seq : seqs) {
      copy.add(Objects.requireNonNull(seq, "seqs contains null"));
    }
    return copy;
  }

  /**
   * Sends a DEAD event again: back to PENDING, available now, attempts reset. In ordered mode its
   * aggregate resumes behind it. Only DEAD events are replayed: CANCELLED and SUPERSEDED ones were
   * withdrawn on purpose and stay so (append a new event to send their content after all).
   *
   * @param eventId the id of the DEAD event, e.g. from {@link #listDead}
   * @return false if no DEAD event has this id
   */
  public boolean replay(UUID eventId) {
    return queries.replay(Objects.requireNonNull(eventId, "eventId"));
  }

  /**
   * Replays every DEAD event, e.g. after fixing the consumer or endpoint that rejected them. In one
   * statement: fine for the usual handful, heavy for a very large DEAD set.
   *
   * @return how many events went back to PENDING
   */
  public int replayAllDead() {
    return queries.replayAllDead();
  }

  /**
   * Deletes a DEAD event for good; in ordered mode its aggregate moves on without it.
   *
   * @param eventId the id of the DEAD event, e.g. from {@link #listDead}
   * @return false if no DEAD event has this id
   */
  public boolean discard(UUID eventId) {
    return queries.discard(Objects.requireNonNull(eventId, "eventId"));
  }

  /**
   * Withdraws a waiting event, as an operator: a PENDING or DEAD event becomes CANCELLED and is
   * never sent (in ordered mode its aggregate moves on without it); one a relay holds is left
   * alone. Unlike {@link #discard}, the row and the reason stay for the record.
   *
   * @param eventId the event's id
   * @param reason why, stored in the event's {@code last_error} (1 to 1000 characters)
   * @return what was found; {@link CancelOutcome#CANCELLED} only if it can no longer be sent
   * @throws IllegalArgumentException if the reason is blank or too long
   */
  public CancelOutcome cancel(UUID eventId, String reason) {
    Objects.requireNonNull(eventId, "eventId");
    return queries.cancel(eventId, CancelOutcome.checkReason(reason));
  }

  /**
   * Withdraws every waiting (PENDING or DEAD) event of one aggregate, as an operator; see {@link
   * #cancel}.
   *
   * @param aggregateType the aggregate's type
   * @param aggregateId the aggregate's id
   * @param reason why, stored with each cancelled event (1 to 1000 characters)
   * @return how many were cancelled, and how many a relay held (and may still deliver)
   */
  public AggregateCancellation cancelAggregate(
      String aggregateType, String aggregateId, String reason) {
    EventValidation.name("aggregateType", aggregateType);
    EventValidation.name("aggregateId", aggregateId);
    return queries.cancelAggregate(
        aggregateType, aggregateId, CancelOutcome.checkReason(reason), AggregateCancellation::new);
  }

  /**
   * Deletes finished rows (PUBLISHED, EXPIRED, CANCELLED, SUPERSEDED) that finished longer ago than
   * the retention, walking the primary key in small transactions (each reads {@code purgeBatchSize}
   * rows, deletes those past retention and locks only them) so relays and appenders are never held
   * up. PENDING, IN_FLIGHT and DEAD rows are never touched. For scheduled retention beside running
   * relays, see {@link OutboxRelay.Builder#retention(Duration)}.
   *
   * @param retention how long finished rows are kept, e.g. for audits or to answer "was it sent?"
   * @return rows deleted
   */
  public long purgeFinished(Duration retention) {
    if (retention == null || retention.isNegative()) {
      throw new IllegalArgumentException("retention must be zero or positive, was " + retention);
    }
    return queries.purgeFinished(retention);
  }

  /** Configures an {@link OutboxAdmin}. */
  public static final class Builder extends PurgeOptions<Builder> {
    private final DataSource dataSource;

    private Builder(DataSource dataSource) {
      super(TableName.DEFAULT);
      this.dataSource = OutboxConfigurationException.requireNonNull(dataSource, "dataSource");
    }

    /** {@return the immutable, thread-safe admin} */
    public OutboxAdmin build() {
      return new OutboxAdmin(this);
    }

    @Override
    Builder self() {
      return this;
    }
  }
}
