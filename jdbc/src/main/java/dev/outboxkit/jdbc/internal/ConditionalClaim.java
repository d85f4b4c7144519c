package dev.outboxkit.jdbc.internal;

import dev.outboxkit.OutboxEvent;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Claims without {@code SKIP LOCKED} ({@link
 * dev.outboxkit.jdbc.dialect.ClaimCapability#CONDITIONAL_UPDATE}): candidates read without locks,
 * then {@link Statements#MARK_CLAIMED_IF_DUE}, an update of those still PENDING and due, whose row
 * locks and re-check decide: a relay that meets a row another relay is claiming waits for that
 * short transaction, then finds the row taken and leaves it. What the update marked is read back by
 * owner ({@link Statements#READ_CLAIMED}). No row is ever claimed twice; concurrent relays
 * serialise on the candidates they share, which is the cost of having no {@code SKIP LOCKED}.
 */
final class ConditionalClaim extends CandidateClaim {
  /**
   * Windows of candidates an unordered claim tries when other relays took every row of the one
   * before: each starts after the last.
   */
  private static final int WINDOWS = 3;

  @Override
  List<ClaimedEvent> claimUnordered(
      Connection c, OutboxSql s, String owner, int limit, Duration lease) throws SQLException {
    // Claim order is priority (highest first), then seq: start before the highest priority.
    int afterPriority = OutboxEvent.MAX_PRIORITY + 1;
    long after = Long.MIN_VALUE;
    for (int window = 0; window < WINDOWS; window++) {
      List<Long> candidates = new ArrayList<>();
      int lastPriority = afterPriority;
      try (Query q = Query.prepare(c, s, Statements.UNORDERED_CANDIDATES)) {
        q.setInt("after_priority", afterPriority).setLong("after", after).setInt("limit", limit);
        try (ResultSet rs = q.executeQuery()) {
          while (rs.next()) {
            candidates.add(rs.getLong("seq"));
            lastPriority = rs.getInt("priority");
          }
        }
      }
      if (candidates.isEmpty()) {
        break;
      }
      List<ClaimedEvent> claimed = take(c, s, owner, lease, candidates, limit);
      if (!claimed.isEmpty() || candidates.size() < limit) {
        return claimed;
      }
      afterPriority = lastPriority;
      after = candidates.get(candidates.size() - 1);
    }
    return new ArrayList<>();
  }

  @Override
  List<ClaimedEvent> take(
      Connection c, OutboxSql s, String owner, Duration lease, List<Long> candidates, int limit)
      throws SQLException {
    // The update marks every candidate still claimable, so it is given no more than the limit.
    List<Long> seqs = candidates.size() > limit ? candidates.subList(0, limit) : candidates;
    if (mark(c, s, Statements.MARK_CLAIMED_IF_DUE, owner, lease, seqs) == 0) {
      return new ArrayList<>();
    }
    List<ClaimedEvent> claimed = new ArrayList<>();
    for (int from = 0; from < seqs.size(); from += Query.MAX_LIST) {
      List<Long> chunk = seqs.subList(from, Math.min(seqs.size(), from + Query.MAX_LIST));
      try (Query q = Query.prepare(c, s, Statements.READ_CLAIMED, chunk.size())) {
        q.setString("owner", owner).setSeqs("seqs", chunk);
        try (ResultSet rs = q.executeQuery()) {
          claimed.addAll(readAll(rs, s.dialect()));
        }
      }
    }
    return claimed;
  }
}
