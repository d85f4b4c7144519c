package dev.outboxkit.jdbc.internal;

import dev.outboxkit.jdbc.dialect.SqlDialect;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The statements of one dialect on one table, each parsed once and rendered once per list size.
 * Thread-safe.
 */
final class OutboxSql {
  private final CompiledDialect dialect;
  private final TableName table;
  private final ConcurrentHashMap<Statement, NamedSql> parsed = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Statement, NamedSql.Rendered> plain = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Key, NamedSql.Rendered> lists = new ConcurrentHashMap<>();

  private OutboxSql(CompiledDialect dialect, TableName table) {
    this.dialect = dialect;
    this.table = table;
  }

  /** Statements of this dialect on this table. */
  public static OutboxSql of(SqlDialect dialect, TableName table) {
    return new OutboxSql(CompiledDialect.of(dialect), table);
  }

  /** The dialect, compiled. */
  public CompiledDialect dialect() {
    return dialect;
  }

  /** The table. */
  public TableName table() {
    return table;
  }

  /** Whether the dialect has the statement (an optional step may be absent). */
  boolean has(Statement st) {
    return dialect.has(st);
  }

  /** The statement's JDBC text and parameter positions, without a list parameter. */
  NamedSql.Rendered rendered(Statement st) {
    NamedSql.Rendered r = plain.get(st);
    if (r == null) {
      r = parsed(st).render(null, 0);
      plain.put(st, r);
    }
    return r;
  }

  /** The statement's JDBC text with its list parameter of {@code size} values. */
  NamedSql.Rendered rendered(Statement st, int size) {
    Key key = new Key(st, size);
    NamedSql.Rendered r = lists.get(key);
    if (r == null) {
      r = parsed(st).render(st.listParam(), size);
      // Batch sizes are few and bounded (the relay's batch size, the IN list cap); a cache of a
      // few hundred entries at most.
      lists.put(key, r);
    }
    return r;
  }

  /** The text of a step that takes no parameters, or null where the dialect has none. */
  String optional(Statement st) {
    return has(st) ? text(st) : null;
  }

  /** The statement's text with the table filled in, for a test or a plan check. */
  public String text(Statement st) {
    return rendered(st).sql;
  }

  private NamedSql parsed(Statement st) {
    return parsed.computeIfAbsent(
        st,
        s -> {
          String text = dialect.text(s);
          if (text == null) {
            throw new IllegalStateException(dialect.name() + " has no statement " + s.name());
          }
          return NamedSql.parse(text.replace("{table}", table.qualified()));
        });
  }

  private static final class Key {
    final Statement statement;
    final int size;

    Key(Statement statement, int size) {
      this.statement = statement;
      this.size = size;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key && ((Key) o).statement == statement && ((Key) o).size == size;
    }

    @Override
    public int hashCode() {
      return statement.hashCode() * 31 + size;
    }
  }
}
