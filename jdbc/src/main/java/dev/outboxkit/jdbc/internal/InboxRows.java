package dev.outboxkit.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.UUID;

/** Runs {@link Statements#INBOX_INSERT} on the consumer's connection. */
public final class InboxRows {
  private InboxRows() {}

  /** Records the pair unless present; true when it was new. */
  public static boolean insert(Connection c, OutboxSql s, String consumer, UUID eventId)
      throws SQLException {
    try (Query q = Query.prepare(c, s, Statements.INBOX_INSERT)) {
      return q.setString("consumer", consumer).setUuid("event_id", eventId).executeUpdate() == 1;
    }
  }
}
