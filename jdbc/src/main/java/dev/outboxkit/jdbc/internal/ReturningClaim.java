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
 * Claims in one statement: an {@code UPDATE … RETURNING} whose inner {@code SELECT … FOR UPDATE
 * SKIP LOCKED} picks the rows, so locking, marking and reading are one round trip (PostgreSQL).
 * Ordered claims also return, per head, whether a PENDING successor exists ({@code has_successor}),
 * so heads without one cost no run search.
 */
public final class ReturningClaim extends ClaimStrategy {
  private final String unordered;
  private final String ordered;
  private final String orderedSparse;
  private final String beforeClaim;

  ReturningClaim(String dialect, Map<String, String> statements) {
    this.unordered = SqlStatements.required(statements, "claimUnordered", dialect);
    this.ordered = SqlStatements.required(statements, "claimOrdered", dialect);
    this.orderedSparse = SqlStatements.required(statements, "claimOrderedSparse", dialect);
    this.beforeClaim = SqlStatements.required(statements, "beforeClaim", dialect);
  }

  /** The unordered claim: params owner, lease micros, limit. */
  public String unordered() {
    return unordered;
  }

  /** The ordered claim, scanning pending rows in seq order: params owner, lease micros, limit. */
  public String ordered() {
    return ordered;
  }

  /**
   * The ordered claim that finds each aggregate's first unfinished event by hopping from aggregate
   * to aggregate over the aggregate index: costs O(aggregates with unfinished events) where {@link
   * #ordered()} costs O(pending events) whenever fewer heads than the limit are claimable. Params
   * owner, lease micros, limit.
   */
  public String orderedSparse() {
    return orderedSparse;
  }

  /**
   * Plan settings for the scanning claims, local to the transaction: they pin the index walk in seq
   * order that {@link #unordered()} and {@link #ordered()} are written for. The sparse claim plans
   * freely.
   */
  public String beforeClaim() {
    return beforeClaim;
  }

  @Override
  boolean hasSparseClaim() {
    return true;
  }

  @Override
  String prelude(Mode mode) {
    return mode == Mode.ORDERED_SPARSE ? null : beforeClaim;
  }

  @Override
  Claimed claim(Connection c, OutboxSql s, String owner, int limit, Mode mode, Duration lease)
      throws SQLException {
    String template =
        mode == Mode.UNORDERED ? unordered : mode == Mode.ORDERED ? ordered : orderedSparse;
    try (PreparedStatement ps = c.prepareStatement(s.sql(template))) {
      ps.setString(1, owner);
      ps.setLong(2, Micros.of(lease));
      ps.setInt(3, limit);
      try (ResultSet rs = ps.executeQuery()) {
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
