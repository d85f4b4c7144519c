package dev.outboxkit.jdbc.internal;

import dev.outboxkit.OutboxEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How one family of databases claims rows inside the claim's transaction: which statements lock the
 * first claimable rows (or, in ordered mode, aggregates' heads) and how they are marked IN_FLIGHT.
 * One implementation per family: {@link ReturningClaim} where an {@code UPDATE … RETURNING} claims
 * in one statement (PostgreSQL), {@link SteppedClaim} where a plain read, a locking re-check and an
 * update do it (MySQL, MariaDB, H2). The runs behind ordered heads are claimed alike everywhere
 * ({@link RunClaim}).
 *
 * <p>A strategy takes its statements from its dialect when it is built and fails then, naming the
 * statement, if one is missing: a packaging error surfaces when the dialect loads, never halfway
 * through a claim.
 */
public abstract class ClaimStrategy {
  /** Which rows a claim takes. */
  public enum Mode {
    /** The first due PENDING rows in seq order. */
    UNORDERED,
    /** The first claimable heads (first unfinished event of their aggregate) in seq order. */
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
  abstract String prelude(Mode mode);

  /**
   * Claims up to {@code limit} rows for {@code owner}, in the caller's transaction.
   *
   * @param s the dialect's statements on the relay's table
   */
  abstract Claimed claim(
      Connection c, OutboxSql s, String owner, int limit, Mode mode, Duration lease)
      throws SQLException;

  /** Marks the given rows IN_FLIGHT for owner, those still PENDING; returns how many it marked. */
  static int markClaimed(
      Connection c, OutboxSql s, String owner, Duration lease, List<ClaimedEvent> rows)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(s.sql(s.dialect().markClaimed(), rows.size()))) {
      ps.setString(1, owner);
      ps.setLong(2, Micros.of(lease));
      int i = 3;
      for (ClaimedEvent e : rows) {
        ps.setLong(i++, e.seq());
      }
      return ps.executeUpdate();
    }
  }

  /** Every row of a claim's result: event columns, {@code attempts} and {@code expired}. */
  static List<ClaimedEvent> readAll(ResultSet rs, SqlDialect dialect) throws SQLException {
    List<ClaimedEvent> claimed = new ArrayList<>();
    while (rs.next()) {
      claimed.add(read(rs, dialect));
    }
    return claimed;
  }

  /** The current row of a claim's result; a row that is no valid event comes back unreadable. */
  static ClaimedEvent read(ResultSet rs, SqlDialect dialect) throws SQLException {
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
    return ClaimedEvent.of(seq, attempt, expired, event);
  }
}
