package dev.outboxkit.jdbc.internal;

import static dev.outboxkit.jdbc.dialect.ClaimCapability.CONDITIONAL_UPDATE;
import static dev.outboxkit.jdbc.dialect.ClaimCapability.RETURNING;
import static dev.outboxkit.jdbc.dialect.ClaimCapability.SKIP_LOCKED;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every statement OutboxKit runs, with its parameters and result columns: the one home of each
 * statement's contract. The text of each is in the statement files ({@code common.sql} and the
 * vendor files) or a user's dialect; {@link CompiledDialect} checks every text against its entry
 * here. Parameter meanings: {@code owner} a claim's lease owner; {@code lease}, {@code delay},
 * {@code within}, {@code age} and the {@code *_age} ones whole microseconds; {@code seqs} a list of
 * row seqs; {@code limit} a row count.
 */
final class Statements {
  private static final List<String> EVENT = EventRows.READ;

  /** Appends one event: the {@link EventRows#WRITTEN} columns, then its delay. */
  public static final Statement INSERT = Statement.always("insert", insertParams());

  /** Seqs of an aggregate's waiting events with a supersede key, except id, in seq order. */
  public static final Statement SUPERSEDE_CANDIDATES =
      Statement.always(
              "supersedeCandidates", "aggregate_type", "aggregate_id", "supersede_key", "id")
          .columns("seq");

  /** Seqs of an aggregate's waiting (PENDING or DEAD) events, in seq order. */
  public static final Statement WAITING_OF_AGGREGATE =
      Statement.always("waitingOfAggregate", "aggregate_type", "aggregate_id").columns("seq");

  /** Those of the rows still waiting get a final status (CANCELLED, SUPERSEDED) and a reason. */
  public static final Statement WITHDRAW =
      Statement.always("withdraw", "status", "reason", "seqs").list("seqs");

  /** One waiting (PENDING or DEAD) event becomes CANCELLED, with the reason. */
  public static final Statement CANCEL = Statement.always("cancel", "reason", "id");

  /** One event's status; no row when there is no such event. */
  public static final Statement EVENT_STATUS =
      Statement.always("eventStatus", "id").columns("status");

  /** How many of an aggregate's events a relay holds. */
  public static final Statement COUNT_IN_FLIGHT_OF_AGGREGATE =
      Statement.always("countInFlightOfAggregate", "aggregate_type", "aggregate_id");

  /** Marks those of the rows still PENDING IN_FLIGHT for owner. */
  public static final Statement MARK_CLAIMED =
      Statement.always("markClaimed", "owner", "lease", "seqs").list("seqs");

  /** Delivered rows become PUBLISHED (fenced by owner). */
  public static final Statement MARK_PUBLISHED =
      Statement.always("markPublished", "owner", "seqs").list("seqs");

  /** Delivered rows are deleted (fenced by owner). */
  public static final Statement DELETE_PUBLISHED =
      Statement.always("deletePublished", "owner", "seqs").list("seqs");

  /** Rows back to PENDING, uncharged (fenced by owner). */
  public static final Statement RELEASE = Statement.always("release", "owner", "seqs").list("seqs");

  /** Rows become EXPIRED (fenced by owner). */
  public static final Statement MARK_EXPIRED =
      Statement.always("markExpired", "owner", "seqs").list("seqs");

  /** One row back to PENDING later; charge is 1 for the event's own failure, 0 for a probe's. */
  public static final Statement MARK_RETRY =
      Statement.always("markRetry", "delay", "charge", "uncertain", "error", "seq", "owner");

  /** One row to DEAD, its last attempt charged. */
  public static final Statement MARK_DEAD =
      Statement.always("markDead", "error", "uncertain", "seq", "owner");

  /** Rows held back, uncharged, after their destination alone was down. */
  public static final Statement MARK_HELD =
      Statement.always("markHeld", "delay", "error", "owner", "seqs").list("seqs");

  /** IN_FLIGHT rows whose lease ran out and that lost max_losses leases become DEAD. */
  public static final Statement QUARANTINE_LOST_LEASES =
      Statement.always("quarantineLostLeases", "error", "max_losses", "window").mayOmit("window");

  /**
   * IN_FLIGHT rows whose lease ran out go back to PENDING, the loss counted; both lease statements
   * read only the leases that ran out within the last {@code window} microseconds, where the
   * dialect's text takes it ({@link RecoveryWindow}).
   */
  public static final Statement RECLAIM_EXPIRED_LEASES =
      Statement.always("reclaimExpiredLeases", "window").mayOmit("window");

  /**
   * One aggregate's PENDING events after its head, up to the first IN_FLIGHT or DEAD one, in seq
   * order; one part of a {@code UNION ALL}, so written in parentheses.
   */
  public static final Statement RUN_SUCCESSORS =
      Statement.always("runSuccessors", "aggregate_type", "aggregate_id", "head", "limit")
          .columns(EVENT, "expired", "due");

  /** Rows of one status. */
  public static final Statement COUNT_STATUS = Statement.always("countStatus", "status");

  /** Count per status. */
  public static final Statement COUNT_BY_STATUS =
      Statement.always("countByStatus").columns("status", "n");

  /** What a drain still waits for. */
  public static final Statement DRAIN_LEFT =
      Statement.always("drainLeft", "within")
          .columns("pending", "behind_dead", "due", "due_not_behind");

  /** The oldest PENDING row's occurred_at and the database's now. */
  public static final Statement OLDEST_PENDING =
      Statement.always("oldestPending").columns("oldest", "db_now");

  /** The live figures in one statement. */
  public static final Statement SNAPSHOT =
      Statement.always("snapshot")
          .columns("pending", "in_flight", "dead", "cancelled", "superseded", "oldest", "db_now");

  /** A page of DEAD events after a seq. */
  public static final Statement LIST_DEAD =
      Statement.always("listDead", "after", "limit")
          .columns(
              "seq",
              "id",
              "aggregate_type",
              "aggregate_id",
              "event_type",
              "attempts",
              "uncertain_sends",
              "last_error",
              "occurred_at",
              "destination",
              "published_at");

  /** One DEAD event back to PENDING, attempts reset. */
  public static final Statement REPLAY_DEAD = Statement.always("replayDead", "id");

  /** Every DEAD event back to PENDING. */
  public static final Statement REPLAY_ALL_DEAD = Statement.always("replayAllDead");

  /** Deletes one DEAD event. */
  public static final Statement DISCARD_DEAD = Statement.always("discardDead", "id");

  /** The next PENDING rows in claim order, grouped for the operator's overview. */
  public static final Statement LIVE_GROUPS =
      Statement.always("liveGroups", "note_prefix", "sample", "limit")
          .columns(
              "destination",
              "event_type",
              "tenant",
              "n",
              "oldest",
              "not_due",
              "held",
              "first_note",
              "held_until");

  /** The relays holding IN_FLIGHT rows. */
  public static final Statement LEASE_HOLDERS =
      Statement.always("leaseHolders", "limit")
          .columns("lease_owner", "n", "first_until", "last_until");

  /** Recently published rows per destination, among the newest rows by seq. */
  public static final Statement RECENT_PUBLISHED =
      Statement.always("recentPublished", "window", "limit")
          .columns("destination", "published", "n", "before_window");

  /** A page of DEAD rows matching a filter. */
  public static final Statement FIND_DEAD =
      Statement.always(
              "findDead",
              "after",
              "any_destination",
              "destination",
              "any_event_type",
              "event_type",
              "any_aggregate_type",
              "aggregate_type",
              "any_aggregate_id",
              "aggregate_id",
              "dead_from",
              "dead_to",
              "limit")
          .columns(LIST_DEAD.columns());

  /** One event by id, with headers and payload. */
  public static final Statement FIND_EVENT =
      Statement.always("findEvent", "id").columns(StoredRows.SUMMARY, "headers", "payload");

  /** An aggregate's unfinished rows in order, with headers. */
  public static final Statement LIVE_OF_AGGREGATE =
      Statement.always("liveOfAggregate", "aggregate_type", "aggregate_id", "limit")
          .columns(StoredRows.SUMMARY, "headers");

  /** DEAD rows, by seq, back to PENDING. */
  public static final Statement REPLAY_DEAD_SEQS =
      Statement.always("replayDeadSeqs", "seqs").list("seqs");

  /** Deletes DEAD rows by seq. */
  public static final Statement DISCARD_DEAD_SEQS =
      Statement.always("discardDeadSeqs", "seqs").list("seqs");

  /** The database's clock. */
  public static final Statement DATABASE_NOW = Statement.always("databaseNow").columns("db_now");

  /** A window of the primary key for retention: each row's seq and whether it is past it. */
  public static final Statement RETENTION_WINDOW =
      Statement.always(
              "retentionWindow",
              "finished_on",
              "finished_age",
              "dead_on",
              "dead_age",
              "after",
              "limit")
          .columns("seq", "old");

  /** Deletes the given rows still past retention. */
  public static final Statement PURGE_RETAINED =
      Statement.always(
              "purgeRetained", "seqs", "finished_on", "finished_age", "dead_on", "dead_age")
          .list("seqs");

  /** Records (consumer, event id) unless present; must not fail on a duplicate. */
  public static final Statement INBOX_INSERT =
      Statement.always("inboxInsert", "consumer", "event_id");

  /** Deletes up to limit inbox rows older than age. */
  public static final Statement INBOX_PURGE = Statement.always("inboxPurge", "age", "limit");

  /** Deletes one (consumer, event id) row: the one this transaction just recorded. */
  public static final Statement INBOX_DELETE =
      Statement.always("inboxDelete", "consumer", "event_id");

  // The ordering guard's statements run on the inbox's version table (their names start with
  // inboxVersion); the others above on the inbox table.

  /**
   * Creates the (consumer, aggregate) row with version 0 unless present. A duplicate is skipped;
   * only a race of two inserts may fail, with the dialect's DUPLICATE_KEY code and the transaction
   * left usable. It must not leave a lock that a second transaction shares: two holders of a shared
   * lock that both then ask for the row's exclusive lock deadlock.
   */
  public static final Statement INBOX_VERSION_CREATE =
      Statement.always("inboxVersionCreate", "consumer", "aggregate_type", "aggregate_id");

  /** The (consumer, aggregate) row's version, read and row-locked until the transaction ends. */
  public static final Statement INBOX_VERSION_LOCK =
      Statement.always("inboxVersionLock", "consumer", "aggregate_type", "aggregate_id")
          .columns("version");

  /** Records an applied version on the (consumer, aggregate) row. */
  public static final Statement INBOX_VERSION_SET =
      Statement.always("inboxVersionSet", "version", "consumer", "aggregate_type", "aggregate_id");

  /** Run first in each relay transaction, or absent. */
  public static final Statement BEFORE_RELAY_TRANSACTION =
      Statement.optional("beforeRelayTransaction");

  /** Bounds a transaction's time on the server; timeout_ms is bound as text. */
  public static final Statement BOUND_TRANSACTION =
      Statement.optional("boundTransaction", "timeout_ms");

  /** Undoes the bound where it outlives the transaction. */
  public static final Statement UNBOUND_TRANSACTION = Statement.optional("unboundTransaction");

  // RETURNING: one statement locks, marks and returns.

  /** The first due PENDING rows, claimed. */
  public static final Statement CLAIM_UNORDERED =
      Statement.claim(EnumSet.of(RETURNING), "claimUnordered", "owner", "lease", "limit", "floor")
          .mayOmit("floor")
          .columns(EVENT, "expired");

  /** The first claimable heads, claimed, each with whether a PENDING successor exists. */
  public static final Statement CLAIM_ORDERED =
      Statement.claim(EnumSet.of(RETURNING), "claimOrdered", "owner", "lease", "limit", "floor")
          .mayOmit("floor")
          .columns(EVENT, "expired", "has_successor");

  /** As {@link #CLAIM_ORDERED}, finding heads aggregate by aggregate. */
  public static final Statement CLAIM_ORDERED_SPARSE =
      Statement.claimOptional(
              EnumSet.of(RETURNING), "claimOrderedSparse", "owner", "lease", "limit")
          .columns(EVENT, "expired", "has_successor");

  /**
   * Where the scanning claims may start reading ({@code floor}, {@link ClaimFloor}): the first
   * PENDING seq due within {@code ahead} microseconds, in ordered mode ({@code ordered} 1) not
   * behind a DEAD event, and the highest seq.
   */
  public static final Statement CLAIM_FLOOR =
      Statement.claimOptional(EnumSet.of(RETURNING), "claimFloor", "ordered", "ahead")
          .columns("first_due", "last_seq");

  /** Plan settings for the scanning claims, local to the transaction. */
  public static final Statement BEFORE_CLAIM =
      Statement.claimOptional(EnumSet.of(RETURNING), "beforeClaim");

  /** Plan settings for the sparse ordered claim, local to the transaction. */
  public static final Statement BEFORE_SPARSE_CLAIM =
      Statement.claimOptional(EnumSet.of(RETURNING), "beforeSparseClaim");

  // SKIP_LOCKED: a plain read, a locking read that skips, an update.

  /** Locks up to limit claimable rows. */
  public static final Statement LOCK_UNORDERED =
      Statement.claim(EnumSet.of(SKIP_LOCKED), "lockUnordered", "limit")
          .mayOmit("limit")
          .columns(EVENT, "expired");

  /** Locks the still-claimable rows among seqs, at most limit. */
  public static final Statement LOCK_CANDIDATES =
      Statement.claim(EnumSet.of(SKIP_LOCKED), "lockCandidates", "seqs", "limit")
          .list("seqs")
          .mayOmit("limit")
          .columns(EVENT, "expired");

  // SKIP_LOCKED and CONDITIONAL_UPDATE: ordered candidates, read without locks.

  /** Seqs of up to limit ordered-mode candidates (heads). */
  public static final Statement ORDERED_CANDIDATES =
      Statement.claim(EnumSet.of(SKIP_LOCKED, CONDITIONAL_UPDATE), "orderedCandidates", "limit")
          .columns("seq");

  /** The first limit due PENDING rows, each with whether it is a head. */
  public static final Statement ORDERED_CANDIDATES_IN_WINDOW =
      Statement.claim(
              EnumSet.of(SKIP_LOCKED, CONDITIONAL_UPDATE), "orderedCandidatesInWindow", "limit")
          .columns("seq", "head");

  // CONDITIONAL_UPDATE: a plain read, an update whose row count decides, a read back.

  /** Seqs of due PENDING rows in claim order (priority, then seq), after a (priority, seq). */
  public static final Statement UNORDERED_CANDIDATES =
      Statement.claim(
              EnumSet.of(CONDITIONAL_UPDATE),
              "unorderedCandidates",
              "after_priority",
              "after",
              "limit")
          .columns("seq", "priority");

  /** Marks IN_FLIGHT those of the rows still PENDING and due. */
  public static final Statement MARK_CLAIMED_IF_DUE =
      Statement.claim(EnumSet.of(CONDITIONAL_UPDATE), "markClaimedIfDue", "owner", "lease", "seqs")
          .list("seqs");

  /** The rows among seqs this owner holds. */
  public static final Statement READ_CLAIMED =
      Statement.claim(EnumSet.of(CONDITIONAL_UPDATE), "readClaimed", "owner", "seqs")
          .list("seqs")
          .columns(EVENT, "expired");

  /** Every statement, by name. */
  static final Map<String, Statement> ALL = catalogue();

  private Statements() {}

  /** {@return every statement, in catalogue order} */
  public static java.util.Collection<Statement> all() {
    return ALL.values();
  }

  private static String[] insertParams() {
    List<String> params = new ArrayList<>(EventRows.WRITTEN);
    params.add("delay");
    return params.toArray(new String[0]);
  }

  private static Map<String, Statement> catalogue() {
    Map<String, Statement> all = new LinkedHashMap<>();
    for (Statement s :
        new Statement[] {
          INSERT,
          SUPERSEDE_CANDIDATES,
          WAITING_OF_AGGREGATE,
          WITHDRAW,
          CANCEL,
          EVENT_STATUS,
          COUNT_IN_FLIGHT_OF_AGGREGATE,
          MARK_CLAIMED,
          MARK_PUBLISHED,
          DELETE_PUBLISHED,
          RELEASE,
          MARK_EXPIRED,
          MARK_RETRY,
          MARK_DEAD,
          MARK_HELD,
          QUARANTINE_LOST_LEASES,
          RECLAIM_EXPIRED_LEASES,
          RUN_SUCCESSORS,
          COUNT_STATUS,
          COUNT_BY_STATUS,
          DRAIN_LEFT,
          OLDEST_PENDING,
          SNAPSHOT,
          LIST_DEAD,
          REPLAY_DEAD,
          REPLAY_ALL_DEAD,
          DISCARD_DEAD,
          LIVE_GROUPS,
          LEASE_HOLDERS,
          RECENT_PUBLISHED,
          FIND_DEAD,
          FIND_EVENT,
          LIVE_OF_AGGREGATE,
          REPLAY_DEAD_SEQS,
          DISCARD_DEAD_SEQS,
          DATABASE_NOW,
          RETENTION_WINDOW,
          PURGE_RETAINED,
          INBOX_INSERT,
          INBOX_PURGE,
          INBOX_DELETE,
          INBOX_VERSION_CREATE,
          INBOX_VERSION_LOCK,
          INBOX_VERSION_SET,
          BEFORE_RELAY_TRANSACTION,
          BOUND_TRANSACTION,
          UNBOUND_TRANSACTION,
          CLAIM_UNORDERED,
          CLAIM_ORDERED,
          CLAIM_ORDERED_SPARSE,
          CLAIM_FLOOR,
          BEFORE_CLAIM,
          BEFORE_SPARSE_CLAIM,
          LOCK_UNORDERED,
          LOCK_CANDIDATES,
          ORDERED_CANDIDATES,
          ORDERED_CANDIDATES_IN_WINDOW,
          UNORDERED_CANDIDATES,
          MARK_CLAIMED_IF_DUE,
          READ_CLAIMED
        }) {
      all.put(s.name(), s);
    }
    return Collections.unmodifiableMap(all);
  }
}
