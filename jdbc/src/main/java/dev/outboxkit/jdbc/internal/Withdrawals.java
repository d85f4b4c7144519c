package dev.outboxkit.jdbc.internal;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.CancelOutcome;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The one home of withdrawing events before they are sent (cancel, supersede), on a connection
 * whose transaction the caller owns: the application's, or the admin's own short one. Only waiting
 * rows (PENDING, DEAD) change; a row a relay holds is left alone, and since every update re-checks
 * the status under the row's lock, a withdrawal and a claim never both win. Rows are found without
 * locks and updated by primary key, so only the withdrawn rows are locked (see common.sql).
 */
final class Withdrawals {
  // Seqs per update: well within every database's limit of bound parameters.
  private static final int CHUNK = 500;

  private Withdrawals() {}

  static CancelOutcome cancel(Connection c, OutboxSql s, UUID eventId, String reason)
      throws SQLException {
    try (Query q = Query.prepare(c, s, Statements.CANCEL)) {
      if (q.setString("reason", reason).setUuid("id", eventId).executeUpdate() > 0) {
        return CancelOutcome.CANCELLED;
      }
    }
    try (Query q = Query.prepare(c, s, Statements.EVENT_STATUS)) {
      try (ResultSet rs = q.setUuid("id", eventId).executeQuery()) {
        return rs.next() ? outcomeOf(rs.getString("status")) : CancelOutcome.NOT_FOUND;
      }
    }
  }

  /**
   * Why the update found nothing to cancel. A waiting status here was read after a relay moved the
   * row on and back (or, under MySQL's REPEATABLE READ, from the transaction's older snapshot): the
   * row was not waiting when the update looked, so it is answered as held by a relay, which tells
   * the caller to ask again.
   */
  private static CancelOutcome outcomeOf(String status) {
    switch (status) {
      case "PUBLISHED":
        return CancelOutcome.ALREADY_SENT;
      case "EXPIRED":
      case "CANCELLED":
      case "SUPERSEDED":
        return CancelOutcome.ALREADY_FINISHED;
      default:
        return CancelOutcome.IN_FLIGHT;
    }
  }

  static <T> T cancelAggregate(
      Connection c,
      OutboxSql s,
      String aggregateType,
      String aggregateId,
      String reason,
      Appends.CancelTally<T> tally)
      throws SQLException {
    List<Long> waiting;
    try (Query q = Query.prepare(c, s, Statements.WAITING_OF_AGGREGATE)) {
      waiting =
          seqs(q.setString("aggregate_type", aggregateType).setString("aggregate_id", aggregateId));
    }
    int cancelled = withdraw(c, s, "CANCELLED", reason, waiting);
    try (Query q = Query.prepare(c, s, Statements.COUNT_IN_FLIGHT_OF_AGGREGATE)) {
      q.setString("aggregate_type", aggregateType).setString("aggregate_id", aggregateId);
      try (ResultSet rs = q.executeQuery()) {
        rs.next();
        return tally.of(cancelled, rs.getInt(1));
      }
    }
  }

  /**
   * Lets the appended events with a supersede key withdraw the earlier waiting events of their
   * aggregate with the same key. Run after the insert, so that the newest event of each (aggregate,
   * key) is simply "not this id": that covers earlier rows of the table and earlier events of the
   * same batch alike. Events without a key cost nothing here.
   */
  static void supersede(Connection c, OutboxSql s, List<OutboxEvent> appended) throws SQLException {
    if (!anyKeyed(appended)) {
      return; // most appends
    }
    Map<List<String>, OutboxEvent> newest = new LinkedHashMap<>();
    for (OutboxEvent e : appended) {
      e.supersedeKey()
          .ifPresent(k -> newest.put(List.of(e.aggregateType(), e.aggregateId(), k), e));
    }
    for (OutboxEvent e : newest.values()) {
      List<Long> stale;
      try (Query q = Query.prepare(c, s, Statements.SUPERSEDE_CANDIDATES)) {
        stale =
            seqs(
                q.setString("aggregate_type", e.aggregateType())
                    .setString("aggregate_id", e.aggregateId())
                    .setString("supersede_key", e.supersedeKey().get())
                    .setUuid("id", e.id()));
      }
      withdraw(c, s, "SUPERSEDED", "superseded by event " + e.id(), stale);
    }
  }

  private static boolean anyKeyed(List<OutboxEvent> events) {
    for (OutboxEvent e : events) {
      if (e.supersedeKey().isPresent()) {
        return true;
      }
    }
    return false;
  }

  private static List<Long> seqs(Query q) throws SQLException {
    List<Long> seqs = new ArrayList<>();
    try (ResultSet rs = q.executeQuery()) {
      while (rs.next()) {
        seqs.add(rs.getLong("seq"));
      }
    }
    return seqs;
  }

  /** {@return how many of the rows were still waiting and now have the final status} */
  private static int withdraw(
      Connection c, OutboxSql s, String status, String reason, List<Long> seqs)
      throws SQLException {
    int withdrawn = 0;
    for (int from = 0; from < seqs.size(); from += CHUNK) {
      List<Long> chunk = seqs.subList(from, Math.min(seqs.size(), from + CHUNK));
      try (Query q = Query.prepare(c, s, Statements.WITHDRAW, chunk.size())) {
        withdrawn +=
            q.setString("status", status)
                .setString("reason", reason)
                .setSeqs("seqs", chunk)
                .executeUpdate();
      }
    }
    return withdrawn;
  }
}
