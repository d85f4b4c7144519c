package dev.outboxkit.jdbc.internal;

import dev.outboxkit.OutboxConfigurationException;
import java.util.regex.Pattern;

/**
 * A validated table name: an unquoted SQL identifier, optionally qualified by a schema. Only
 * validated names are ever placed into SQL text, so a name can never inject SQL.
 */
public final class TableName {
  /** The default table: {@value}. */
  public static final String DEFAULT = "outbox_event";

  // 50 characters leaves room for index names such as <table>_aggregate_idx within PostgreSQL's
  // 63-character identifier limit.
  private static final Pattern PART = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,49}");

  private final String qualified;
  private final String simple;

  private TableName(String qualified, String simple) {
    this.qualified = qualified;
    this.simple = simple;
  }

  /**
   * @param name {@code table} or {@code schema.table}
   * @return the validated name
   * @throws OutboxConfigurationException if it is not a plain identifier
   */
  public static TableName of(String name) {
    if (name == null) {
      throw new OutboxConfigurationException("table name must not be null");
    }
    String[] parts = name.split("\\.", -1);
    boolean valid = parts.length <= 2;
    for (String part : parts) {
      valid &= PART.matcher(part).matches();
    }
    if (!valid) {
      throw new OutboxConfigurationException(
          "table name '"
              + name
              + "' is not a plain SQL identifier: use letters, digits and underscores, starting"
              + " with a letter or underscore, at most 50 characters, optionally qualified as"
              + " schema.table");
    }
    return new TableName(name, parts[parts.length - 1]);
  }

  /** The name as used in statements, schema-qualified if it was given so. */
  public String qualified() {
    return qualified;
  }

  /** The table part alone, the stem of index and constraint names. */
  public String simple() {
    return simple;
  }

  @Override
  public String toString() {
    return qualified;
  }
}
