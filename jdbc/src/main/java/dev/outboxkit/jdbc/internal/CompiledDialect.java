package dev.outboxkit.jdbc.internal;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.jdbc.dialect.ErrorCodes;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import java.nio.ByteBuffer;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeSet;
import java.util.UUID;
import java.util.WeakHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@link SqlDialect} made ready to run: every statement with its placeholders filled in (all but
 * the table name) and checked against {@link Statements}, its claim strategy, and the binding of
 * the types whose JDBC mapping differs by database. One per dialect, made when it is built.
 *
 * <p>Public because it is the dialect SPI's one way into the SQL layer: {@link SqlDialect}'s
 * builder reads and checks statement files through it.
 */
public final class CompiledDialect {
  private static final Map<SqlDialect, CompiledDialect> COMPILED =
      Collections.synchronizedMap(new WeakHashMap<>());

  private static final Pattern CLOCK_SHIFT = Pattern.compile("\\{now\\s*([+-])\\s*:(\\w+)\\s*}");
  private static final Pattern ROWS = Pattern.compile("\\{rows\\s+(:\\w+|\\d+)\\s*}");
  private static final Pattern EVENT_COLUMNS = Pattern.compile("\\{event_columns(?::(\\w+))?}");
  private static final Pattern FROM_ONE_ROW = Pattern.compile("\\s*\\{from_one_row}");
  private static final Pattern UNKNOWN = Pattern.compile("\\{(?!table})\\w+(:\\w+)?}");
  private final SqlDialect dialect;
  private final Map<Statement, String> texts;
  private final ClaimStrategy claims;

  private CompiledDialect(SqlDialect dialect) {
    this.dialect = dialect;
    Map<Statement, String> rendered = new HashMap<>();
    for (String name : dialect.statementNames()) {
      Statement st = Statements.ALL.get(name);
      if (st == null) {
        throw refused(
            name,
            "is not a statement OutboxKit runs; the statements are "
                + new TreeSet<>(Statements.ALL.keySet()));
      }
      rendered.put(st, check(st, render(dialect.statement(name).orElseThrow())));
    }
    for (Statement st : Statements.ALL.values()) {
      if (st.requiredFor(dialect.claimCapability()) && !rendered.containsKey(st)) {
        throw refused(
            st.name(),
            "is missing"
                + (st.capabilities().isEmpty()
                    ? ""
                    : " (claim capability " + dialect.claimCapability() + " runs it)")
                + ": add it with statement(\""
                + st.name()
                + "\", sql) taking "
                + wanted(st)
                + ", or start from a preset with toBuilder");
      }
    }
    this.texts = rendered;
    switch (dialect.claimCapability()) {
      case RETURNING:
        this.claims = new ReturningClaim(has(Statements.CLAIM_ORDERED_SPARSE));
        break;
      case SKIP_LOCKED:
        this.claims = new SteppedClaim();
        break;
      default:
        this.claims = new ConditionalClaim();
    }
  }

  /**
   * The dialect compiled, checking it the first time.
   *
   * @throws OutboxConfigurationException naming the statement and what to do, if it is not one
   *     OutboxKit can run
   */
  public static CompiledDialect of(SqlDialect dialect) {
    CompiledDialect compiled = COMPILED.get(dialect);
    if (compiled == null) {
      compiled = new CompiledDialect(dialect);
      COMPILED.put(dialect, compiled);
    }
    return compiled;
  }

  /** {@return the text of {@code common.sql}, where {@link SqlDialect#builder} starts} */
  public static String commonStatements() {
    return SqlStatements.commonText();
  }

  /**
   * Parses a statement file into its statements by name, in file order.
   *
   * @param source where the text came from, for errors
   * @throws IllegalStateException if the text is not a statement file
   */
  public static Map<String, String> parseStatements(String source, String text) {
    return SqlStatements.parse(source, text);
  }

  private String render(String template) {
    String sql =
        template
            .replace("{written_columns}", String.join(", ", EventRows.WRITTEN))
            .replace("{written_values}", writtenValues());
    sql = replace(EVENT_COLUMNS, sql, m -> EventRows.readColumns(m.group(1)));
    sql =
        replace(
            CLOCK_SHIFT,
            sql,
            m ->
                (m.group(1).equals("+") ? dialect.nowPlusMicros() : dialect.nowMinusMicros())
                    .replace("{micros}", ":" + m.group(2)));
    sql = sql.replace("{now}", dialect.now());
    String oneRow = dialect.oneRowTable();
    sql =
        oneRow == null
            ? FROM_ONE_ROW.matcher(sql).replaceAll("")
            : sql.replace("{from_one_row}", "FROM " + oneRow);
    return replace(ROWS, sql, m -> dialect.rowLimit().replace("{n}", m.group(1)));
  }

  private static String writtenValues() {
    StringJoiner values = new StringJoiner(", ");
    EventRows.WRITTEN.forEach(c -> values.add(":" + c));
    return values.toString();
  }

  private static String replace(
      Pattern p, String sql, java.util.function.Function<Matcher, String> with) {
    Matcher m = p.matcher(sql);
    StringBuffer out = new StringBuffer(sql.length() + 64);
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(with.apply(m)));
    }
    return m.appendTail(out).toString();
  }

  /** Checks a rendered statement's placeholders and parameters against its contract. */
  private String check(Statement st, String sql) {
    Matcher unknown = UNKNOWN.matcher(sql);
    if (unknown.find()) {
      throw refused(
          st.name(),
          "has an unknown placeholder "
              + unknown.group()
              + " (known: {table}, {event_columns}, {written_columns}, {written_values}, {now},"
              + " {now + :p}, {now - :p}, {rows :p}, {from_one_row})");
    }
    Set<String> used;
    try {
      used = NamedSql.parse(sql).names();
    } catch (IllegalArgumentException e) {
      throw refused(st.name(), "has " + e.getMessage());
    }
    Set<String> missing = new TreeSet<>(st.params());
    missing.removeAll(used);
    missing.removeAll(st.mayOmit());
    Set<String> extra = new TreeSet<>(used);
    extra.removeAll(st.params());
    if (!missing.isEmpty() || !extra.isEmpty()) {
      throw refused(
          st.name(),
          "must take the parameters "
              + wanted(st)
              + (missing.isEmpty() ? "" : "; it lacks " + names(missing))
              + (extra.isEmpty()
                  ? ""
                  : "; it uses " + names(extra) + ", which OutboxKit does not bind")
              + " (parameters are bound by name, so their order in the text is free)");
    }
    return sql;
  }

  /** The parameters a statement takes, those it may omit said as optional. */
  private static String wanted(Statement st) {
    Set<String> required = new java.util.LinkedHashSet<>(st.params());
    required.removeAll(st.mayOmit());
    return names(required)
        + (st.mayOmit().isEmpty() ? "" : " (optionally " + names(st.mayOmit()) + ")");
  }

  private static String names(Set<String> params) {
    if (params.isEmpty()) {
      return "no parameters";
    }
    StringJoiner s = new StringJoiner(", ");
    params.forEach(p -> s.add(":" + p));
    return s.toString();
  }

  private OutboxConfigurationException refused(String statement, String why) {
    return new OutboxConfigurationException(
        "dialect " + dialect.name() + ": statement " + statement + " " + why);
  }

  /** The dialect. */
  public SqlDialect dialect() {
    return dialect;
  }

  /** The product name, for logs and errors. */
  public String name() {
    return dialect.name();
  }

  /** What this database's error codes mean. */
  public ErrorCodes errors() {
    return dialect.errors();
  }

  /** How this dialect claims rows. */
  ClaimStrategy claims() {
    return claims;
  }

  /** Whether this dialect has the statement (an optional step may be absent). */
  boolean has(Statement st) {
    return texts.containsKey(st);
  }

  /** The statement's text, the table name left as {@code {table}}; null if absent. */
  String text(Statement st) {
    return texts.get(st);
  }

  /** Binds an event id. */
  public void setUuid(PreparedStatement ps, int index, UUID id) throws SQLException {
    switch (dialect.ids()) {
      case UUID:
        ps.setObject(index, id);
        break;
      case TEXT:
        ps.setString(index, id == null ? null : id.toString());
        break;
      default:
        ps.setBytes(index, id == null ? null : bytes(id));
    }
  }

  /** Reads an event id, or null. */
  public UUID getUuid(ResultSet rs, String column) throws SQLException {
    switch (dialect.ids()) {
      case UUID:
        return rs.getObject(column, UUID.class);
      case TEXT:
        String text = rs.getString(column);
        return text == null ? null : UUID.fromString(text.trim());
      default:
        byte[] b = rs.getBytes(column);
        if (b == null) {
          return null;
        }
        ByteBuffer buf = ByteBuffer.wrap(b);
        return new UUID(buf.getLong(), buf.getLong());
    }
  }

  private static byte[] bytes(UUID id) {
    return ByteBuffer.allocate(16)
        .putLong(id.getMostSignificantBits())
        .putLong(id.getLeastSignificantBits())
        .array();
  }

  /** Binds an instant, or null. */
  public void setInstant(PreparedStatement ps, int index, Instant instant) throws SQLException {
    switch (dialect.times()) {
      case OFFSET_DATE_TIME:
        if (instant == null) {
          ps.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        } else {
          ps.setObject(index, instant.atOffset(ZoneOffset.UTC));
        }
        break;
      case UTC_TEXT:
        if (instant == null) {
          ps.setNull(index, Types.TIMESTAMP);
        } else {
          ps.setString(index, UtcText.format(instant));
        }
        break;
      case UTC_LOCAL_DATE_TIME:
        if (instant == null) {
          ps.setNull(index, Types.TIMESTAMP);
        } else {
          ps.setObject(index, LocalDateTime.ofInstant(instant, ZoneOffset.UTC));
        }
        break;
      default:
        if (instant == null) {
          ps.setNull(index, Types.TIMESTAMP);
        } else {
          ps.setTimestamp(index, Timestamp.from(instant));
        }
    }
  }

  /** Reads an instant, or null. */
  public Instant getInstant(ResultSet rs, String column) throws SQLException {
    switch (dialect.times()) {
      case OFFSET_DATE_TIME:
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
      case UTC_TEXT:
      case UTC_LOCAL_DATE_TIME:
        LocalDateTime l = rs.getObject(column, LocalDateTime.class);
        return l == null ? null : l.toInstant(ZoneOffset.UTC);
      default:
        Timestamp ts = rs.getTimestamp(column);
        return ts == null ? null : ts.toInstant();
    }
  }
}
