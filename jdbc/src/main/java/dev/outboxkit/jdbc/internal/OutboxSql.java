package dev.outboxkit.jdbc.internal;

import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;

/** The statements of one dialect with one table name filled in, each rendered once. Thread-safe. */
public final class OutboxSql {
  private final SqlDialect dialect;
  private final TableName table;
  private final ConcurrentHashMap<String, String> rendered = new ConcurrentHashMap<>();

  private OutboxSql(SqlDialect dialect, TableName table) {
    this.dialect = dialect;
    this.table = table;
  }

  /** Statements of this dialect on this table. */
  public static OutboxSql of(SqlDialect dialect, TableName table) {
    return new OutboxSql(dialect, table);
  }

  /** The dialect. */
  public SqlDialect dialect() {
    return dialect;
  }

  /** The table. */
  public TableName table() {
    return table;
  }

  /** A dialect statement with the table filled in. */
  public String sql(String template) {
    return rendered.computeIfAbsent(template, t -> t.replace("{table}", table.qualified()));
  }

  /** A dialect statement with the table and {@code count} seq placeholders filled in. */
  public String sql(String template, int count) {
    StringJoiner marks = new StringJoiner(", ");
    for (int i = 0; i < count; i++) {
      marks.add("?");
    }
    return sql(template).replace("{seqs}", marks.toString());
  }
}
