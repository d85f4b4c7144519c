package dev.outboxkit.jdbc;

import dev.outboxkit.OutboxConfigurationException;
import java.util.List;

/**
 * The outbox table is missing, or lacks columns this version needs: thrown by {@link
 * OutboxRelay#start()}'s table check, with the DDL or the {@code ALTER TABLE} statements to run in
 * the message. Nothing was claimed or changed.
 */
public class OutboxSchemaException extends OutboxConfigurationException {
  private static final long serialVersionUID = 1L;

  /** The table, as written in SQL, for operators' tooling. */
  private final String table;

  /** The columns the table lacks; empty when the table itself is missing. */
  private final List<String> missingColumns;

  /**
   * @param table the table, as written in SQL
   * @param missingColumns the columns it lacks; empty when the table itself is missing
   * @param message what is wrong and the statements that mend it
   * @param cause the database's answer, or null
   */
  public OutboxSchemaException(
      String table, List<String> missingColumns, String message, Throwable cause) {
    super(message, cause);
    this.table = table;
    this.missingColumns = List.copyOf(missingColumns);
  }

  /** {@return the table, as written in SQL} */
  public String table() {
    return table;
  }

  /** {@return the columns the table lacks; empty when the table itself does not exist} */
  public List<String> missingColumns() {
    return missingColumns;
  }
}
