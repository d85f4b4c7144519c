package dev.outboxkit.jdbc.internal;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Claims the runs behind ordered heads, alike on every database: each head's due PENDING
 * successors, up to the aggregate's first event that is not (IN_FLIGHT, DEAD, or not due yet), at
 * most an even share of the room per aggregate. Holding the head keeps every other relay off the
 * run, since each of its events is blocked by the head; so the read needs no lock, and the mark
 * only checks that nothing changed in between.
 */
final class RunClaim {
  /** Most heads whose runs one ordered claim extends: one {@code UNION ALL} part each. */
  static final int MAX_RUN_HEADS = 100;

  private RunClaim() {}

  /**
   * Claims the runs behind the given heads, which the caller's transaction holds: reads each head's
   * successors (one {@code UNION ALL} part per head, each bounded), keeps each aggregate's due
   * prefix, the earliest {@code room} of them in all, and marks them IN_FLIGHT.
   *
   * @throws Conflict if a row read was no longer PENDING when marked; the caller rolls back
   */
  static List<ClaimedEvent> claim(
      Connection c, OutboxSql s, String owner, List<ClaimedEvent> heads, int room, Duration lease)
      throws SQLException {
    List<ClaimedEvent> leaders = heads.subList(0, Math.min(heads.size(), MAX_RUN_HEADS));
    int perHead = (room + leaders.size() - 1) / leaders.size();
    List<ClaimedEvent> run = new ArrayList<>();
    try (Query q = Query.union(c, s, Statements.RUN_SUCCESSORS, leaders.size())) {
      for (int i = 0; i < leaders.size(); i++) {
        ClaimedEvent head = leaders.get(i);
        q.part(i)
            .setString("aggregate_type", head.aggregateType())
            .setString("aggregate_id", head.aggregateId())
            .setLong("head", head.seq())
            .setInt("limit", perHead);
      }
      try (ResultSet rs = q.executeQuery()) {
        Set<String> cut = new HashSet<>();
        while (rs.next()) {
          ClaimedEvent e = ClaimStrategy.read(rs, s.dialect());
          if (cut.contains(e.aggregate())) {
            continue;
          }
          if (!rs.getBoolean("due")) {
            cut.add(e.aggregate()); // not due yet: the run ends before it
            continue;
          }
          run.add(e);
        }
      }
    }
    if (run.isEmpty()) {
      return run;
    }
    // Each aggregate's rows are a prefix of its run, so the earliest rows overall keep that.
    run.sort(Comparator.comparingLong(ClaimedEvent::seq));
    List<ClaimedEvent> taken = new ArrayList<>(run.subList(0, Math.min(room, run.size())));
    if (ClaimStrategy.markClaimed(c, s, owner, lease, taken) != taken.size()) {
      throw new Conflict();
    }
    return taken;
  }

  /** A run changed under the claim (an append committed out of seq order, say). */
  static final class Conflict extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Conflict() {
      super("a run's row changed while it was claimed", null, false, false);
    }
  }
}
