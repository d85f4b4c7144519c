package dev.outboxkit.jdbc.internal;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Claims in one statement ({@link dev.outboxkit.jdbc.dialect.ClaimCapability#RETURNING}): an {@code
 * UPDATE … RETURNING} whose inner {@code SELECT … FOR UPDATE SKIP LOCKED} picks the rows, so
 * locking, marking and reading are one round trip. Ordered claims also return, per head, whether a
 * PENDING successor exists ({@code has_successor}), so heads without one cost no run search.
 */
final class ReturningClaim extends ClaimStrategy {
  private final boolean sparse;

  /**
   * @param sparse whether the dialect has {@link Statements#CLAIM_ORDERED_SPARSE}
   */
  ReturningClaim(boolean sparse) {
    this.sparse = sparse;
  }

  @Override
  boolean hasSparseClaim() {
    return sparse;
  }

  /**
   * The plan settings ({@link Statements#BEFORE_CLAIM}) pin the index walk in seq order that the
   * scanning claims are written for; the sparse claim plans freely ({@link
   * Statements#BEFORE_SPARSE_CLAIM}).
   */
  @Override
  Statement prelude(Mode mode) {
    return mode == Mode.ORDERED_SPARSE ? Statements.BEFORE_SPARSE_CLAIM : Statements.BEFORE_CLAIM;
  }

  @Override
  Claimed claim(
      Connection c, OutboxSql s, String owner, int limit, Mode mode, Duration lease, long floor)
      throws SQLException {
    Statement st =
        mode == Mode.UNORDERED
            ? Statements.CLAIM_UNORDERED
            : mode == Mode.ORDERED ? Statements.CLAIM_ORDERED : Statements.CLAIM_ORDERED_SPARSE;
    try (Query q = Query.prepare(c, s, st)) {
      q.setString("owner", owner).setLong("lease", Micros.of(lease)).setInt("limit", limit);
      if (mode != Mode.ORDERED_SPARSE) {
        q.setLong("floor", floor);
      }
      try (ResultSet rs = q.executeQuery()) {
        List<ClaimedEvent> claimed = new ArrayList<>();
        boolean successors = false;
        while (rs.next()) {
          claimed.add(read(rs, s.dialect()));
          successors = successors || (mode != Mode.UNORDERED && rs.getBoolean("has_successor"));
        }
        // No head claimed has a PENDING successor: there is no run to look for.
        return new Claimed(claimed, successors);
      }
    }
  }
}
