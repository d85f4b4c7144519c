package dev.outboxkit.jdbc.internal;

import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** A harmless value of the right type for every parameter of a statement, for tests. */
public final class StatementSamples {
  private StatementSamples() {}

  /**
   * {@return the table (or its statements) a statement runs on: the inbox's version table for the
   * ordering guard's ({@code inboxVersion*}), the inbox table for the inbox's others, the outbox
   * table otherwise}
   */
  public static <T> T table(Statement st, T outbox, T inbox, T versions) {
    if (st.name().startsWith("inboxVersion")) {
      return versions;
    }
    return st.name().startsWith("inbox") ? inbox : outbox;
  }

  /**
   * Binds every parameter of the statement by its name.
   *
   * @param micros the value of the microsecond parameters (delays, leases, ages)
   */
  public static void bind(Query q, Statement st, long micros) throws SQLException {
    for (String p : st.params()) {
      switch (p) {
        case "seqs":
          q.setSeqs(p, List.of(1L, 2L));
          break;
        case "limit":
        case "max_losses":
        case "charge":
        case "uncertain":
        case "finished_on":
        case "dead_on":
        case "schema_version":
        case "any_destination":
        case "any_event_type":
        case "any_aggregate_type":
        case "any_aggregate_id":
        case "sample":
        case "ordered":
          q.setInt(p, 1);
          break;
        case "id":
        case "event_id":
          q.setUuid(p, UUID.randomUUID());
          break;
        case "payload":
          q.setBytes(p, new byte[] {1, 2});
          break;
        case "occurred_at":
        case "expires_at":
        case "dead_from":
        case "dead_to":
          q.setInstant(p, Instant.parse("2026-03-04T05:06:07Z"));
          break;
        case "delay":
        case "lease":
        case "within":
        case "age":
        case "finished_age":
        case "dead_age":
        case "window":
        case "ahead":
          q.setLong(p, micros);
          break;
        case "priority":
        case "after_priority":
          q.setInt(p, 0);
          break;
        case "seq":
        case "aggregate_version":
        case "version":
        case "after":
        case "head":
        case "floor":
          q.setLong(p, 0);
          break;
        case "status":
          q.setString(p, "CANCELLED");
          break;
        default: // owner, error, aggregate_type, ..., headers, consumer
          q.setString(p, "x");
      }
    }
  }
}
