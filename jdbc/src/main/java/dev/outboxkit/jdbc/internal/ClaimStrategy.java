package dev.outboxkit.jdbc.internal;

import dev.outboxkit.OutboxEvent;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How a database claims rows inside the claim's transaction: which statements lock the first
 * claimable rows (or, in ordered mode, aggregates' heads) and how they are marked IN_FLIGHT. One
 * implementation per {@link dev.outboxkit.jdbc.dialect.ClaimCapability}, chosen by the dialect's
 * capability, never by vendor: {@link ReturningClaim} where an {@code UPDATE … RETURNING} claims in
 * one statement, {@link SteppedClaim} where a plain read, a locking read that skips locked rows and
 * an update do it, {@link ConditionalClaim} where there is no {@code SKIP LOCKED}. The runs behind
 * ordered heads are claimed alike everywhere ({@link RunClaim}). The dialect's statements were
 * checked when it was built, so none is missing halfway through a claim.
 */
abstract class ClaimStrategy {
  /** Which rows a claim takes. */
  public enum Mode {
    /** The first due PENDING rows, higher priority first, then in seq order. */
    UNORDERED,
    /**
     * The first claimable heads (first unfinished event of their aggregate), higher priority first,
     * then in seq order.
     */
    ORDERED,
    /**
     * Ordered, found by hopping from aggregate to aggregate: cheaper when few heads are claimable,
     * where the plain ordered claim reads every pending event. Only where {@link
     * #hasSparseClaim()}.
     */
    ORDERED_SPARSE
  }

  /** What a claim took, in seq order, and whether runs may stand behind its heads. */
  static final class Claimed {
    final List<ClaimedEvent> events;

    /**
     * False when the claim saw that no due PENDING row but the claimed heads exists: the run search
     * behind them can be skipped.
     */
    final boolean runsPossible;

    Claimed(List<ClaimedEvent> events, boolean runsPossible) {
      this.events = events;
      this.runsPossible = runsPossible;
    }
  }

  ClaimStrategy() {}

  /** Whether {@link Mode#ORDERED_SPARSE} is supported. */
  abstract boolean hasSparseClaim();

  /**
   * A statement to run first in a claim's transaction (after the relay's preludes), or null: plan
   * settings that fit one claim statement only.
   */
  abstract Statement prelude(Mode mode);

  /**
   * Claims up to {@code limit} rows for {@code owner}, in the caller's transaction.
   *
   * @param s the dialect's statements on the relay's table
   * @param floor where a scanning claim may start reading ({@link ClaimFloor}); 0 for anywhere
   */
  abstract Claimed claim(
      Connection c, OutboxSql s, String owner, int limit, Mode mode, Duration lease, long floor)
      throws SQLException;

  /** Marks the given rows IN_FLIGHT for owner, those still PENDING; returns how many it marked. */
  static int markClaimed(
      Connection c, OutboxSql s, String owner, Duration lease, List<ClaimedEvent> rows)
      throws SQLException {
    return mark(c, s, Statements.MARK_CLAIMED, owner, lease, seqs(rows));
  }

  /**
   * Runs a marking statement (owner, lease, seqs), in lists of at most {@link Query#MAX_LIST};
   * returns how many rows it marked.
   */
  static int mark(
      Connection c, OutboxSql s, Statement st, String owner, Duration lease, List<Long> seqs)
      throws SQLException {
    int marked = 0;
    for (int from = 0; from < seqs.size(); from += Query.MAX_LIST) {
      List<Long> chunk = seqs.subList(from, Math.min(seqs.size(), from + Query.MAX_LIST));
      try (Query q = Query.prepare(c, s, st, chunk.size())) {
        marked +=
            q.setString("owner", owner)
                .setLong("lease", Micros.of(lease))
                .setSeqs("seqs", chunk)
                .executeUpdate();
      }
    }
    return marked;
  }

  /** The rows' seqs, in order. */
  static List<Long> seqs(List<ClaimedEvent> rows) {
    List<Long> seqs = new ArrayList<>(rows.size());
    for (ClaimedEvent e : rows) {
      seqs.add(e.seq());
    }
    return seqs;
  }

  /**
   * Every row of a claim's result: event columns, {@code attempts}, {@code uncertain_sends} and
   * {@code expired}.
   */
  static List<ClaimedEvent> readAll(ResultSet rs, CompiledDialect dialect) throws SQLException {
    List<ClaimedEvent> claimed = new ArrayList<>();
    while (rs.next()) {
      claimed.add(read(rs, dialect));
    }
    return claimed;
  }

  /** The current row of a claim's result; a row that is no valid event comes back unreadable. */
  static ClaimedEvent read(ResultSet rs, CompiledDialect dialect) throws SQLException {
    long seq = rs.getLong("seq");
    // attempts counts the event's own failed sends; this is the next one.
    int attempt = rs.getInt("attempts") + 1;
    boolean expired = rs.getBoolean("expired");
    OutboxEvent event;
    try {
      event = EventRows.read(rs, dialect);
    } catch (RuntimeException e) {
      return ClaimedEvent.unreadable(
          seq,
          attempt,
          rs.getString("aggregate_type"),
          rs.getString("aggregate_id"),
          "unreadable row: " + e.getMessage());
    }
    return ClaimedEvent.of(seq, attempt, rs.getInt("uncertain_sends"), expired, event);
  }
}
