package dev.outboxkit.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Claims in steps where there is no {@code UPDATE … RETURNING} and a locking read also locks (and,
 * with SKIP LOCKED, skips) the rows its subqueries read (MySQL, MariaDB, H2): a plain read of
 * candidates, a {@code FOR UPDATE SKIP LOCKED} read that re-checks and locks them, then an update
 * that marks them.
 */
public final class SteppedClaim extends ClaimStrategy {
  private final String lockUnordered;
  private final String orderedCandidates;
  private final String orderedCandidatesInWindow;
  private final String lockCandidates;

  SteppedClaim(String dialect, Map<String, String> statements) {
    this.lockUnordered = SqlStatements.required(statements, "lockUnordered", dialect);
    this.orderedCandidates = SqlStatements.required(statements, "orderedCandidates", dialect);
    this.orderedCandidatesInWindow =
        SqlStatements.required(statements, "orderedCandidatesInWindow", dialect);
    this.lockCandidates = SqlStatements.required(statements, "lockCandidates", dialect);
  }

  /** Locks up to {@code ?} claimable rows, unordered mode; returns event columns + expired. */
  public String lockUnordered() {
    return lockUnordered;
  }

  /** Non-locking read of up to {@code ?} ordered-mode candidates' seq numbers. */
  public String orderedCandidates() {
    return orderedCandidates;
  }

  /**
   * The first {@code ?} due PENDING rows, seq and whether each qualifies as in {@link
   * #orderedCandidates()} ({@code head} 1 or 0): a read bounded however deep the backlog. Params:
   * the window.
   */
  public String orderedCandidatesInWindow() {
    return orderedCandidatesInWindow;
  }

  /** Locks the still-claimable rows among {@code {seqs}}, then at most {@code ?} of them. */
  public String lockCandidates() {
    return lockCandidates;
  }

  @Override
  boolean hasSparseClaim() {
    return false;
  }

  @Override
  String prelude(Mode mode) {
    return null;
  }

  @Override
  Claimed claim(Connection c, OutboxSql s, String owner, int limit, Mode mode, Duration lease)
      throws SQLException {
    Claimed claimed;
    if (mode == Mode.UNORDERED) {
      try (PreparedStatement ps = c.prepareStatement(s.sql(lockUnordered))) {
        ps.setInt(1, limit);
        try (ResultSet rs = ps.executeQuery()) {
          claimed = new Claimed(readAll(rs, s.dialect()), true);
        }
      }
    } else {
      claimed = claimHeads(c, s, limit);
    }
    if (!claimed.events.isEmpty()) {
      markClaimed(c, s, owner, lease, claimed.events);
    }
    return claimed;
  }

  /**
   * First the heads among the first PENDING rows (a bounded read, however deep the backlog: with a
   * hot aggregate the window holds its head, and its run fills the batch); only when that claims
   * nothing from a full window, the read of every PENDING row until enough heads are found. Twice
   * the batch of candidates: those other relays lock meanwhile are skipped, not waited on.
   */
  private Claimed claimHeads(Connection c, OutboxSql s, int limit) throws SQLException {
    List<Long> heads = new ArrayList<>();
    int others = 0;
    int read = 0;
    try (PreparedStatement ps = c.prepareStatement(s.sql(orderedCandidatesInWindow))) {
      ps.setInt(1, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          read++;
          if (rs.getInt("head") == 0) {
            others++;
          } else if (heads.size() < 2 * limit) {
            heads.add(rs.getLong("seq"));
          }
        }
      }
    }
    List<ClaimedEvent> claimed = lock(c, s, heads, limit);
    // A window that was not full held every due PENDING row: beyond it there is nothing to claim
    // (an idle poll is one statement), and if each was a head, nothing runs behind them.
    if (!claimed.isEmpty() || read < limit) {
      return new Claimed(claimed, others > 0 || read >= limit);
    }
    return new Claimed(lock(c, s, candidates(c, s, 2 * limit), limit), true);
  }

  /** Seq numbers of up to {@code max} ordered-mode candidates. */
  private List<Long> candidates(Connection c, OutboxSql s, int max) throws SQLException {
    List<Long> candidates = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(s.sql(orderedCandidates))) {
      ps.setInt(1, max);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          candidates.add(rs.getLong(1));
        }
      }
    }
    return candidates;
  }

  /** Locks up to {@code limit} candidates still claimable, skipping those another relay locked. */
  private List<ClaimedEvent> lock(Connection c, OutboxSql s, List<Long> candidates, int limit)
      throws SQLException {
    if (candidates.isEmpty()) {
      return new ArrayList<>();
    }
    try (PreparedStatement ps = c.prepareStatement(s.sql(lockCandidates, candidates.size()))) {
      int i = 1;
      for (long seq : candidates) {
        ps.setLong(i++, seq);
      }
      ps.setInt(i, limit);
      try (ResultSet rs = ps.executeQuery()) {
        return readAll(rs, s.dialect());
      }
    }
  }
}
