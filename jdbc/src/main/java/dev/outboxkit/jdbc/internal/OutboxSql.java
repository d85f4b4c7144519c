package dev.outboxkit.jdbc.internal;

import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The statements of one dialect with one table name and the event column lists filled in, each
 * rendered once. Thread-safe.
 */
public final class OutboxSql {
  /** {@code {event_columns}}, or {@code {event_columns:alias}}. */
  private static final Pattern EVENT_COLUMNS = Pattern.compile("\\{event_columns(?::(\\w+))?}");

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

  /** A dialect statement with the table and the column lists ({@link EventRows}) filled in. */
  public String sql(String template) {
    return rendered.computeIfAbsent(template, this::render);
  }

  /** A dialect statement as {@link #sql(String)}, with {@code count} seq placeholders filled in. */
  public String sql(String template, int count) {
    return sql(template).replace("{seqs}", marks(count));
  }

  private String render(String template) {
    String sql =
        template
            .replace("{table}", table.qualified())
            .replace("{written_columns}", String.join(", ", EventRows.WRITTEN))
            .replace("{written_values}", marks(EventRows.WRITTEN.size()));
    Matcher m = EVENT_COLUMNS.matcher(sql);
    StringBuffer out = new StringBuffer(sql.length() + 256);
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(EventRows.readColumns(m.group(1))));
    }
    return m.appendTail(out).toString();
  }

  private static String marks(int count) {
    StringJoiner marks = new StringJoiner(", ");
    for (int i = 0; i < count; i++) {
      marks.add("?");
    }
    return marks.toString();
  }
}
