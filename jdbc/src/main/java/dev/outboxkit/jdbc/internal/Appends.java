package dev.outboxkit.jdbc.internal;

import dev.outboxkit.OutboxEvent;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.function.Function;

/** Runs {@link Statements#INSERT} on the caller's connection: one event, or a JDBC batch. */
public final class Appends {
  private Appends() {}

  /**
   * Inserts events in one statement execution (a batch when more than one).
   *
   * @param headers each event's headers column, encoded
   */
  public static void insert(
      Connection c, OutboxSql s, List<OutboxEvent> events, Function<OutboxEvent, String> headers)
      throws SQLException {
    try (Query q = Query.prepare(c, s, Statements.INSERT)) {
      if (events.size() == 1) {
        bind(q, events.get(0), headers).executeUpdate();
        return;
      }
      for (OutboxEvent e : events) {
        bind(q, e, headers).addBatch();
      }
      q.executeBatch();
    }
  }

  private static Query bind(Query q, OutboxEvent e, Function<OutboxEvent, String> headers)
      throws SQLException {
    return EventRows.bind(q, e, headers.apply(e)).setLong("delay", Micros.of(e.delay()));
  }
}
