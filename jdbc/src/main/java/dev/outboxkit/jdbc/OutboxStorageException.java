package dev.outboxkit.jdbc;

import dev.outboxkit.OutboxException;
import java.sql.SQLException;

/**
 * The relay or admin could not read or write the outbox table (database down, connection lost,
 * table missing). Nothing is lost: events stay in the table and the relay retries.
 */
public class OutboxStorageException extends OutboxException {
  private static final long serialVersionUID = 1L;

  /** Kept as a field so operators' tooling can tell which of several outboxes failed. */
  private final String table;

  /**
   * @param what what was being done, e.g. "claim a batch"
   * @param table the outbox table
   * @param cause the database failure
   */
  public OutboxStorageException(String what, String table, SQLException cause) {
    super("cannot " + what + " on " + table + ": " + cause.getMessage(), cause);
    this.table = table;
  }

  /** {@return the outbox table involved} */
  public String table() {
    return table;
  }
}
