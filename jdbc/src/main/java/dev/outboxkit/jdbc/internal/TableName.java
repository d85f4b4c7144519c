package dev.outboxkit.jdbc.internal;

import dev.outboxkit.OutboxConfigurationException;
import java.util.Locale;
import java.util.Set;
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

  // Reserved words of the SQL standard, PostgreSQL, MySQL, MariaDB and H2 that a table name might
  // plausibly be: each fails as an unquoted identifier on at least one of them.
  private static final Set<String> RESERVED =
      Set.of(
          "all",
          "alter",
          "and",
          "any",
          "array",
          "as",
          "asc",
          "between",
          "both",
          "by",
          "case",
          "cast",
          "check",
          "column",
          "constraint",
          "create",
          "cross",
          "current",
          "current_date",
          "current_time",
          "current_timestamp",
          "current_user",
          "default",
          "delete",
          "desc",
          "distinct",
          "drop",
          "else",
          "end",
          "except",
          "exists",
          "false",
          "fetch",
          "for",
          "foreign",
          "from",
          "full",
          "grant",
          "group",
          "having",
          "if",
          "in",
          "index",
          "inner",
          "insert",
          "intersect",
          "interval",
          "into",
          "is",
          "join",
          "key",
          "keys",
          "leading",
          "left",
          "like",
          "limit",
          "localtime",
          "localtimestamp",
          "match",
          "minus",
          "natural",
          "not",
          "null",
          "offset",
          "on",
          "or",
          "order",
          "outer",
          "primary",
          "qualify",
          "range",
          "references",
          "regexp",
          "rename",
          "revoke",
          "right",
          "row",
          "rownum",
          "rows",
          "select",
          "session_user",
          "set",
          "some",
          "table",
          "then",
          "to",
          "trailing",
          "true",
          "union",
          "unique",
          "update",
          "usage",
          "user",
          "using",
          "values",
          "when",
          "where",
          "window",
          "with");

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
    for (String part : parts) {
      if (valid && RESERVED.contains(part.toLowerCase(Locale.ROOT))) {
        throw new OutboxConfigurationException(
            "table name '"
                + name
                + "': '"
                + part
                + "' is a reserved word of SQL or of a supported database, so statements on it"
                + " would fail; choose another name, e.g. '"
                + part
                + "_outbox'");
      }
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
