package dev.outboxkit.jdbc.internal;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * Claims in steps ({@link dev.outboxkit.jdbc.dialect.ClaimCapability#SKIP_LOCKED}) where there is
 * no {@code UPDATE … RETURNING}, or a locking read also locks (and, with SKIP LOCKED, skips) the
 * rows its subqueries read: a plain read of candidates, a {@code FOR UPDATE SKIP LOCKED} read that
 * re-checks and locks them, then an update that marks them. The locking reads also stop at the
 * limit on the client ({@code setMaxRows}), for databases that lock rows as they are fetched and
 * accept no row limit beside {@code SKIP LOCKED}.
 */
final class SteppedClaim extends CandidateClaim {
  @Override
  List<ClaimedEvent> claimUnordered(
      Connection c, OutboxSql s, String owner, int limit, Duration lease) throws SQLException {
    List<ClaimedEvent> claimed;
    try (Query q = Query.prepare(c, s, Statements.LOCK_UNORDERED)) {
      q.setInt("limit", limit).maxRows(limit);
      try (ResultSet rs = q.executeQuery()) {
        claimed = readAll(rs, s.dialect());
      }
    }
    return marked(c, s, owner, lease, claimed);
  }

  @Override
  List<ClaimedEvent> take(
      Connection c, OutboxSql s, String owner, Duration lease, List<Long> candidates, int limit)
      throws SQLException {
    List<ClaimedEvent> locked;
    try (Query q = Query.prepare(c, s, Statements.LOCK_CANDIDATES, candidates.size())) {
      q.setSeqs("seqs", candidates).setInt("limit", limit).maxRows(limit);
      try (ResultSet rs = q.executeQuery()) {
        locked = readAll(rs, s.dialect());
      }
    }
    return marked(c, s, owner, lease, locked);
  }

  private static List<ClaimedEvent> marked(
      Connection c, OutboxSql s, String owner, Duration lease, List<ClaimedEvent> locked)
      throws SQLException {
    if (!locked.isEmpty()) {
      markClaimed(c, s, owner, lease, locked);
    }
    return locked;
  }
}
