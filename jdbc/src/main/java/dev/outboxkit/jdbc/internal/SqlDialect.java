package dev.outboxkit.jdbc.internal;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.UUID;

/**
 * The SQL of one database product. A dialect returns statement text and capability flags and binds
 * the few types whose JDBC mapping differs by vendor; it never runs a statement.
 *
 * <p>Statement text uses two placeholders: {@code {table}} (the validated, possibly
 * schema-qualified table name) and {@code {seqs}} (a list of {@code ?} for a batch of sequence
 * numbers). Every time comparison uses the database clock, never the relay host's.
 */
public abstract class SqlDialect {

  /** Columns the relay reads to rebuild an event, in this order, after {@code seq}. */
  public static final String EVENT_COLUMNS =
      "seq, id, aggregate_type, aggregate_id, event_type, schema_version, destination, tenant,"
          + " payload, content_type, headers, occurred_at, expires_at, attempts";

  /** Product name for logs and errors. */
  public abstract String name();

  /** Class-path resource of the DDL, relative to {@code dev/outboxkit/jdbc/schema/}. */
  public abstract String schemaResource();

  /** Inserts one event: 12 parameters, the 12th the delay in microseconds before availability. */
  public abstract String insert();

  /**
   * True when {@link #claimUnordered()} and {@link #claimOrdered()} claim in one statement ({@code
   * UPDATE … RETURNING}); false when the relay locks with {@link #lockUnordered()} or {@link
   * #orderedCandidates()} + {@link #lockCandidates()} and then runs {@link #markClaimed()}.
   */
  public abstract boolean claimsInOneStatement();

  /** One-statement unordered claim: params owner, lease millis, limit. */
  public String claimUnordered() {
    throw new UnsupportedOperationException(name());
  }

  /** One-statement ordered claim: params owner, lease millis, limit. */
  public String claimOrdered() {
    throw new UnsupportedOperationException(name());
  }

  /**
   * One-statement ordered claim that finds each aggregate's first unfinished event by hopping from
   * aggregate to aggregate over the aggregate index: costs O(aggregates with unfinished events)
   * where {@link #claimOrdered()} costs O(pending events) whenever fewer heads than the limit are
   * claimable. Params owner, lease millis, limit. Null where unsupported.
   */
  public String claimOrderedSparse() {
    return null;
  }

  /** Locks up to {@code ?} claimable rows, unordered mode; returns event columns + expired. */
  public String lockUnordered() {
    throw new UnsupportedOperationException(name());
  }

  /** Non-locking read of up to {@code ?} ordered-mode candidates' seq numbers. */
  public String orderedCandidates() {
    throw new UnsupportedOperationException(name());
  }

  /** Locks the still-claimable rows among {@code {seqs}}; returns event columns + expired. */
  public String lockCandidates() {
    throw new UnsupportedOperationException(name());
  }

  /** Marks {@code {seqs}} IN_FLIGHT: params owner, lease millis, then the seqs. */
  public String markClaimed() {
    throw new UnsupportedOperationException(name());
  }

  /** IN_FLIGHT rows whose lease ran out go back to PENDING. No params. */
  public abstract String reclaimExpiredLeases();

  /** Delivered rows become PUBLISHED: params owner, then seqs. */
  public abstract String markPublished();

  /** Delivered rows are deleted: params owner, then seqs. */
  public abstract String deletePublished();

  /** Rows go back to PENDING without charging the attempt: params owner, then seqs. */
  public abstract String release();

  /** Rows become EXPIRED: params owner, then seqs. */
  public abstract String markExpired();

  /**
   * One row back to PENDING later: params delay micros, attempts to give back (0 or 1), last_error,
   * seq, owner.
   */
  public abstract String markRetry();

  /** One row to DEAD: params last_error, seq, owner. */
  public abstract String markDead();

  /** Rows of one status: param status. */
  public abstract String countStatus();

  /** Count per status, whole table: no params; columns status, n. */
  public abstract String countByStatus();

  /** Lowest-seq PENDING row's occurred_at and the database's now: no params. */
  public abstract String oldestPending();

  /**
   * The live figures in one statement, each from an index of live rows: no params; columns pending,
   * in_flight, dead, oldest (the lowest-seq PENDING row's occurred_at, or null), db_now. The
   * statuses are literals, not parameters, so PostgreSQL can match its partial indexes.
   */
  public abstract String snapshot();

  /** A page of DEAD events after a seq: params after-seq, limit. */
  public abstract String listDead();

  /** One DEAD event back to PENDING with attempts reset: param id. */
  public abstract String replayDead();

  /** Every DEAD event back to PENDING with attempts reset: no params. */
  public abstract String replayAllDead();

  /** Deletes one DEAD event: param id. */
  public abstract String discardDead();

  /**
   * Deletes up to {@code ?} PUBLISHED/EXPIRED rows finished before now minus micros: params micros,
   * limit.
   */
  public abstract String purgeFinished();

  /**
   * A statement run first in each relay transaction (claim and acknowledgement), or null for none;
   * it must leave the pooled connection as it found it. On InnoDB it sets READ COMMITTED for the
   * next transaction only: the default REPEATABLE READ takes gap locks while claiming, which would
   * stall applications inserting new events into the same index range. On PostgreSQL it lets the
   * relay's commits skip the WAL flush wait.
   */
  public String beforeRelayTransaction() {
    return null;
  }

  /**
   * A statement run first in each claim transaction, after {@link #beforeRelayTransaction()}, or
   * null for none.
   */
  public String beforeClaim() {
    return null;
  }

  /** Binds an event id. */
  public void setUuid(PreparedStatement ps, int index, UUID id) throws SQLException {
    ps.setObject(index, id);
  }

  /** Reads an event id. */
  public UUID getUuid(ResultSet rs, String column) throws SQLException {
    return rs.getObject(column, UUID.class);
  }

  /** Binds an instant, or null. */
  public abstract void setInstant(PreparedStatement ps, int index, Instant instant)
      throws SQLException;

  /** Reads an instant, or null. */
  public abstract Instant getInstant(ResultSet rs, String column) throws SQLException;

  /** Class-path resource of the inbox DDL, relative to {@code dev/outboxkit/jdbc/schema/}. */
  public abstract String inboxSchemaResource();

  /**
   * Records (consumer, event id) unless present: params consumer, event id. Updates one row when
   * new, none when the pair was there; waits for a concurrent inserter of the same pair to finish.
   */
  public abstract String inboxInsert();

  /** Deletes up to {@code ?} inbox rows older than now minus micros: params micros, limit. */
  public abstract String inboxPurge();
}
