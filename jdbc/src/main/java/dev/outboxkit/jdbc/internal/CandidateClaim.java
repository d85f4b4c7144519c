package dev.outboxkit.jdbc.internal;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The claims that find ordered-mode candidates with a plain read and then take them in a step of
 * their own ({@link SteppedClaim}, {@link ConditionalClaim}): how heads are found is theirs in
 * common, how they are taken is each one's.
 */
abstract class CandidateClaim extends ClaimStrategy {
  @Override
  final boolean hasSparseClaim() {
    return false;
  }

  @Override
  final Statement prelude(Mode mode) {
    return null;
  }

  @Override
  final Claimed claim(
      Connection c, OutboxSql s, String owner, int limit, Mode mode, Duration lease, long floor)
      throws SQLException {
    if (mode == Mode.UNORDERED) {
      return new Claimed(claimUnordered(c, s, owner, limit, lease), true);
    }
    return claimHeads(c, s, owner, limit, lease);
  }

  /** Claims up to {@code limit} due PENDING rows, in claim order, marked IN_FLIGHT. */
  abstract List<ClaimedEvent> claimUnordered(
      Connection c, OutboxSql s, String owner, int limit, Duration lease) throws SQLException;

  /**
   * Takes up to {@code limit} of the candidates still claimable, marked IN_FLIGHT; those another
   * relay took meanwhile are left out.
   */
  abstract List<ClaimedEvent> take(
      Connection c, OutboxSql s, String owner, Duration lease, List<Long> candidates, int limit)
      throws SQLException;

  /**
   * First the heads among the first PENDING rows (a bounded read, however deep the backlog: with a
   * hot aggregate the window holds its head, and its run fills the batch); only when that claims
   * nothing from a full window, the read of every PENDING row until enough heads are found. Twice
   * the batch of candidates (at most one {@code IN} list): those other relays take meanwhile are
   * passed over.
   */
  private Claimed claimHeads(Connection c, OutboxSql s, String owner, int limit, Duration lease)
      throws SQLException {
    List<Long> heads = new ArrayList<>();
    int others = 0;
    int read = 0;
    try (Query q = Query.prepare(c, s, Statements.ORDERED_CANDIDATES_IN_WINDOW)) {
      q.setInt("limit", limit);
      try (ResultSet rs = q.executeQuery()) {
        while (rs.next()) {
          read++;
          if (rs.getInt("head") == 0) {
            others++;
          } else if (heads.size() < Math.min(2 * limit, Query.MAX_LIST)) {
            heads.add(rs.getLong("seq"));
          }
        }
      }
    }
    List<ClaimedEvent> claimed = takeSome(c, s, owner, lease, heads, limit);
    // A window that was not full held every due PENDING row: beyond it there is nothing to claim
    // (an idle poll is one statement), and if each was a head, nothing runs behind them.
    if (!claimed.isEmpty() || read < limit) {
      return new Claimed(claimed, others > 0 || read >= limit);
    }
    return new Claimed(
        takeSome(c, s, owner, lease, candidates(c, s, Math.min(2 * limit, Query.MAX_LIST)), limit),
        true);
  }

  private List<ClaimedEvent> takeSome(
      Connection c, OutboxSql s, String owner, Duration lease, List<Long> candidates, int limit)
      throws SQLException {
    return candidates.isEmpty() ? new ArrayList<>() : take(c, s, owner, lease, candidates, limit);
  }

  /** Seq numbers of up to {@code max} ordered-mode candidates. */
  private static List<Long> candidates(Connection c, OutboxSql s, int max) throws SQLException {
    List<Long> candidates = new ArrayList<>();
    try (Query q = Query.prepare(c, s, Statements.ORDERED_CANDIDATES)) {
      q.setInt("limit", max);
      try (ResultSet rs = q.executeQuery()) {
        while (rs.next()) {
          candidates.add(rs.getLong(1));
        }
      }
    }
    return candidates;
  }
}
