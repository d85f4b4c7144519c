package dev.outboxkit.jdbc.internal;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiFunction;

/**
 * The SQL of one database product. A dialect returns statement text and the {@link ClaimStrategy}
 * of its family, and binds the few types whose JDBC mapping differs by vendor; it never runs a
 * statement.
 *
 * <p>The statements live in resource files under {@code dev/outboxkit/jdbc/sql/}: {@code
 * common.sql} holds those that read the same everywhere, and one file per vendor the ones that
 * differ (see {@link SqlStatements}). Each method here names one statement and documents its
 * parameters. Statement text uses placeholders that {@link OutboxSql} fills in: {@code {table}}
 * (the validated, possibly schema-qualified table name), {@code {seqs}} (a list of {@code ?} for a
 * batch of sequence numbers) and the column lists of {@link EventRows}; {@link SqlClock} fills in
 * the clock. Every time comparison uses the database clock, never the relay host's.
 */
public abstract class SqlDialect {
  /**
   * The statements every dialect has; a dialect without one fails to load. The others are optional
   * steps ({@code beforeRelayTransaction}, {@code boundTransaction}, {@code unboundTransaction}) or
   * belong to a claim strategy, which asks for its own.
   */
  private static final List<String> REQUIRED =
      Arrays.asList(
          "insert",
          "markClaimed",
          "runSuccessors",
          "quarantineLostLeases",
          "reclaimExpiredLeases",
          "markPublished",
          "deletePublished",
          "release",
          "markExpired",
          "markRetry",
          "markDead",
          "markHeld",
          "countStatus",
          "countByStatus",
          "oldestPending",
          "snapshot",
          "listDead",
          "replayDead",
          "replayAllDead",
          "discardDead",
          "retentionWindow",
          "purgeRetained",
          "inboxInsert",
          "inboxPurge");

  private final String name;
  private final String schemaFile;
  private final Map<String, String> statements;
  private final ClaimStrategy claims;

  /**
   * @param name the product name, for logs and errors
   * @param clock the vendor's current time, filled in for the clock placeholders of the statement
   *     files
   * @param schemaFile the vendor's DDL file, under {@code dev/outboxkit/jdbc/schema/} (the inbox's
   *     is {@code inbox-} + that name)
   * @param claims the claim strategy of the vendor's family, built from its statements
   * @param vendorFiles the vendor's statement files, relative to {@code dev/outboxkit/jdbc/sql/},
   *     layered in order over {@code common.sql} (a later file's statement replaces an earlier one
   *     of the same name)
   * @throws IllegalStateException if a statement the dialect needs is missing
   */
  SqlDialect(
      String name,
      SqlClock clock,
      String schemaFile,
      BiFunction<String, Map<String, String>, ClaimStrategy> claims,
      String... vendorFiles) {
    String[] files = new String[vendorFiles.length + 1];
    files[0] = "common.sql";
    System.arraycopy(vendorFiles, 0, files, 1, vendorFiles.length);
    this.name = name;
    this.schemaFile = schemaFile;
    this.statements = SqlStatements.load(clock, files);
    for (String required : REQUIRED) {
      SqlStatements.required(statements, required, name);
    }
    this.claims = claims.apply(name, statements);
  }

  /**
   * The statement of that name: never null for the {@link #REQUIRED} ones, checked when the dialect
   * loaded; null for an optional step this vendor does not take (or a name it does not have).
   */
  final String statement(String name) {
    return statements.get(name);
  }

  /** The names of this dialect's statements, for checks of the resource files. */
  final Set<String> statementNames() {
    return statements.keySet();
  }

  /** Product name for logs and errors. */
  public final String name() {
    return name;
  }

  /** Class-path resource of the DDL, relative to {@code dev/outboxkit/jdbc/schema/}. */
  public final String schemaResource() {
    return schemaFile;
  }

  /** Class-path resource of the inbox DDL, relative to {@code dev/outboxkit/jdbc/schema/}. */
  public final String inboxSchemaResource() {
    return "inbox-" + schemaFile;
  }

  /** How this vendor's family claims rows. */
  public final ClaimStrategy claims() {
    return claims;
  }

  /**
   * Inserts one event: the columns {@link EventRows#bind} binds, then the delay in microseconds
   * before availability.
   */
  public final String insert() {
    return statement("insert");
  }

  /**
   * Marks those of {@code {seqs}} that are still PENDING IN_FLIGHT: params owner, lease micros,
   * then the seqs.
   */
  public final String markClaimed() {
    return statement("markClaimed");
  }

  /**
   * One aggregate's PENDING events after its head, up to the first IN_FLIGHT or DEAD one, in seq
   * order, with event columns + expired + due (available now). A non-locking read; the claim of a
   * run repeats it once per head, joined by {@code UNION ALL}. Params: aggregate type, aggregate
   * id, the head's seq three times, the most rows.
   */
  public final String runSuccessors() {
    return statement("runSuccessors");
  }

  /**
   * IN_FLIGHT rows whose lease ran out and that lost as many leases before become DEAD: params
   * last_error, the count of lost leases (this one included) that quarantines.
   */
  public final String quarantineLostLeases() {
    return statement("quarantineLostLeases");
  }

  /** IN_FLIGHT rows whose lease ran out go back to PENDING, the loss counted. No params. */
  public final String reclaimExpiredLeases() {
    return statement("reclaimExpiredLeases");
  }

  /** Delivered rows become PUBLISHED: params owner, then seqs. */
  public final String markPublished() {
    return statement("markPublished");
  }

  /** Delivered rows are deleted: params owner, then seqs. */
  public final String deletePublished() {
    return statement("deletePublished");
  }

  /** Rows go back to PENDING without charging the attempt: params owner, then seqs. */
  public final String release() {
    return statement("release");
  }

  /** Rows become EXPIRED: params owner, then seqs. */
  public final String markExpired() {
    return statement("markExpired");
  }

  /**
   * One row back to PENDING later: params delay micros, attempts to charge (1 for the event's own
   * failure, 0 for a probe's), last_error, seq, owner.
   */
  public final String markRetry() {
    return statement("markRetry");
  }

  /** One row to DEAD, its last attempt charged: params last_error, seq, owner. */
  public final String markDead() {
    return statement("markDead");
  }

  /** Rows of one status: param status. */
  public final String countStatus() {
    return statement("countStatus");
  }

  /**
   * PENDING rows left for a drain: pending, behind_dead, due, due_not_behind; params: the micros
   * within which a row counts as due, twice.
   */
  public final String drainLeft() {
    return statement("drainLeft");
  }

  /** Count per status, whole table: no params; columns status, n. */
  public final String countByStatus() {
    return statement("countByStatus");
  }

  /** Lowest-seq PENDING row's occurred_at and the database's now: no params. */
  public final String oldestPending() {
    return statement("oldestPending");
  }

  /**
   * The live figures in one statement, each from an index of live rows: no params; columns pending,
   * in_flight, dead, oldest (the lowest-seq PENDING row's occurred_at, or null), db_now. The
   * statuses are literals, not parameters, so PostgreSQL can match its partial indexes.
   */
  public final String snapshot() {
    return statement("snapshot");
  }

  /** A page of DEAD events after a seq: params after-seq, limit. */
  public final String listDead() {
    return statement("listDead");
  }

  /** One DEAD event back to PENDING with attempts reset: param id. */
  public final String replayDead() {
    return statement("replayDead");
  }

  /** Every DEAD event back to PENDING with attempts reset: no params. */
  public final String replayAllDead() {
    return statement("replayAllDead");
  }

  /** Deletes one DEAD event: param id. */
  public final String discardDead() {
    return statement("discardDead");
  }

  /**
   * Holds rows back, uncharged, after their destination alone was down: params delay micros, error,
   * owner, then the {@code {seqs}}. Fenced like the other acknowledgements.
   */
  public final String markHeld() {
    return statement("markHeld");
  }

  /**
   * Reads a window of the primary key for retention, without locks: each row's seq and whether it
   * is past retention (1/0). Params: finished rows on (1/0), their retention micros, DEAD rows on
   * (1/0), their retention micros, the seq the window starts after, the window size.
   */
  public final String retentionWindow() {
    return statement("retentionWindow");
  }

  /**
   * Deletes the given rows that are still past retention. Params: the {@code {seqs}}, then the
   * first four of {@link #retentionWindow()}.
   */
  public final String purgeRetained() {
    return statement("purgeRetained");
  }

  /**
   * A statement run first in each relay transaction (claim and acknowledgement), or null for none;
   * it must leave the pooled connection as it found it. On InnoDB it sets READ COMMITTED for the
   * next transaction only: the default REPEATABLE READ takes gap locks while claiming, which would
   * stall applications inserting new events into the same index range.
   */
  public final String beforeRelayTransaction() {
    return statement("beforeRelayTransaction");
  }

  /**
   * A statement run at the start of every transaction OutboxKit runs on its own connections (relay,
   * admin, inbox purge), right after {@link #beforeRelayTransaction()}, that bounds its time on the
   * server: each statement, each lock wait, and the idle time between statements (a client whose
   * network died leaves a transaction idle; the server then ends it and releases its row locks). On
   * PostgreSQL it also lets these commits skip the WAL flush wait, in the same round trip. Every
   * {@code ?} is the limit in milliseconds, bound as text. Null where the vendor has none.
   */
  public final String boundTransaction() {
    return statement("boundTransaction");
  }

  /**
   * Undoes {@link #boundTransaction()} after the transaction ended, where its settings outlive the
   * transaction (MySQL's session variables) and the connection goes back to a pool. No params; null
   * where nothing is to undo.
   */
  public final String unboundTransaction() {
    return statement("unboundTransaction");
  }

  /** Binds an event id. */
  public void setUuid(PreparedStatement ps, int index, UUID id) throws SQLException {
    ps.setObject(index, id);
  }

  /** Reads an event id. */
  public UUID getUuid(ResultSet rs, String column) throws SQLException {
    return rs.getObject(column, UUID.class);
  }

  /** Binds an instant, or null: as a {@code TIMESTAMP WITH TIME ZONE} in UTC. */
  public void setInstant(PreparedStatement ps, int index, Instant instant) throws SQLException {
    if (instant == null) {
      ps.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      ps.setObject(index, instant.atOffset(ZoneOffset.UTC));
    }
  }

  /** Reads an instant, or null. */
  public Instant getInstant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  /**
   * Records (consumer, event id) unless present: params consumer, event id. Updates one row when
   * new, none when the pair was there; waits for a concurrent inserter of the same pair to finish.
   */
  public final String inboxInsert() {
    return statement("inboxInsert");
  }

  /** Deletes up to {@code ?} inbox rows older than now minus micros: params micros, limit. */
  public final String inboxPurge() {
    return statement("inboxPurge");
  }
}
