package dev.outboxkit.jdbc.dialect;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.jdbc.internal.CompiledDialect;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * How OutboxKit speaks to one database product: its statements, its clock, its row limit, how it
 * claims, its column types and its error codes. Immutable and thread-safe; built once, passed to
 * {@code Outbox.writer()}, {@code OutboxRelay.builder}, {@code OutboxAdmin}, {@code Inbox} and
 * {@code OutboxSchema}. The shipped databases are presets ({@link
 * dev.outboxkit.jdbc.Dialect#preset()}); start from one with {@link #toBuilder} and override what
 * differs, or from {@code common.sql} alone with {@link #builder}.
 *
 * <h2>Statements</h2>
 *
 * Each statement has a name and named parameters ({@code :owner}), fixed by OutboxKit: an override
 * may write them in any order and any number of times, but must take the same ones, which {@link
 * Builder#build} checks. Statement text may use these placeholders, filled in by OutboxKit:
 *
 * <ul>
 *   <li>{@code {table}}: the table name, possibly schema-qualified;
 *   <li>{@code {event_columns}} or {@code {event_columns:a}}: the columns an event is read from
 *       (qualified by alias {@code a}); {@code {written_columns}} and {@code {written_values}}: the
 *       columns an append writes and their parameters;
 *   <li>{@code {now}}, {@code {now + :p}}, {@code {now - :p}}: the database's clock, and that time
 *       moved by parameter {@code :p}, whole microseconds (from {@link Builder#clock});
 *   <li>{@code {rows :p}} or {@code {rows 1}}: the row limit clause (from {@link
 *       Builder#rowLimit});
 *   <li>{@code {from_one_row}}: what a {@code SELECT} of expressions only reads from, nothing where
 *       the database allows that, else {@code FROM} its one-row table (from {@link
 *       Builder#oneRowTable}).
 * </ul>
 *
 * A statement file holds statements, each from a {@code -- name: <statement>} line to the next;
 * other whole-line {@code --} comments are dropped. The names {@code schema} and {@code
 * inboxSchema} in a statement file are the DDL scripts of the outbox and inbox tables ({@code
 * ;}-separated, the tables named {@code outbox_event} and {@code outbox_inbox}), so a dialect can
 * be one class and one SQL resource.
 */
@Beta
public final class SqlDialect {
  /** The statement-file names that carry DDL scripts instead of statements. */
  private static final String SCHEMA = "schema";

  private static final String INBOX_SCHEMA = "inboxSchema";

  private final String name;
  private final Map<String, String> statements;
  private final String now;
  private final String nowPlusMicros;
  private final String nowMinusMicros;
  private final String rowLimit;
  private final String oneRowTable;
  private final ClaimCapability claim;
  private final IdColumn ids;
  private final TimeColumn times;
  private final ErrorCodes errors;
  private final String schema;
  private final String inboxSchema;

  private SqlDialect(Builder b) {
    this.name = b.name;
    this.statements = Collections.unmodifiableMap(new LinkedHashMap<>(b.statements));
    this.now = b.now;
    this.nowPlusMicros = b.nowPlusMicros;
    this.nowMinusMicros = b.nowMinusMicros;
    this.rowLimit = b.rowLimit;
    this.oneRowTable = b.oneRowTable;
    this.claim = b.claim;
    this.ids = b.ids;
    this.times = b.times;
    this.errors = b.errors;
    this.schema = b.schema;
    this.inboxSchema = b.inboxSchema;
  }

  /**
   * {@return a builder that starts from OutboxKit's common statements only} They are written for
   * databases that know {@code LIMIT}-style row limits (through {@code {rows}}), {@code SELECT}
   * without {@code FROM} and the SQL standard otherwise; override those your database reads
   * differently. The clock, row limit and claim capability must be set.
   *
   * @param name the product's name, for logs and errors
   */
  public static Builder builder(String name) {
    return new Builder(name).statements("common.sql", CompiledDialect.commonStatements());
  }

  /**
   * {@return a builder that starts from everything this dialect says}
   *
   * @param name the new dialect's name, for logs and errors
   */
  public Builder toBuilder(String name) {
    Builder b = new Builder(name);
    b.statements.putAll(statements);
    b.now = now;
    b.nowPlusMicros = nowPlusMicros;
    b.nowMinusMicros = nowMinusMicros;
    b.rowLimit = rowLimit;
    b.oneRowTable = oneRowTable;
    b.claim = claim;
    b.ids = ids;
    b.times = times;
    b.errors = errors;
    b.schema = schema;
    b.inboxSchema = inboxSchema;
    return b;
  }

  /** {@return the product's name, for logs and errors} */
  public String name() {
    return name;
  }

  /** {@return how this database claims rows} */
  public ClaimCapability claimCapability() {
    return claim;
  }

  /**
   * {@return a statement's text as given, placeholders unfilled; empty if this dialect has none}
   *
   * @param statement the statement's name
   */
  public Optional<String> statement(String statement) {
    return Optional.ofNullable(statements.get(statement));
  }

  /** {@return the names of this dialect's statements} */
  public Set<String> statementNames() {
    return statements.keySet();
  }

  /** {@return the clock expression: the database's current time} */
  public String now() {
    return now;
  }

  /** {@return the current time plus {@code {micros}} microseconds} */
  public String nowPlusMicros() {
    return nowPlusMicros;
  }

  /** {@return the current time minus {@code {micros}} microseconds} */
  public String nowMinusMicros() {
    return nowMinusMicros;
  }

  /** {@return the row limit clause, with {@code {n}} for the count} */
  public String rowLimit() {
    return rowLimit;
  }

  /** {@return the one-row table a SELECT without a table reads from, or null for none} */
  public String oneRowTable() {
    return oneRowTable;
  }

  /** {@return how event ids are stored} */
  public IdColumn ids() {
    return ids;
  }

  /** {@return how instants are stored} */
  public TimeColumn times() {
    return times;
  }

  /** {@return what this database's error codes mean} */
  public ErrorCodes errors() {
    return errors;
  }

  /** {@return the outbox table's DDL script, table named {@code outbox_event}; empty if none} */
  public Optional<String> schema() {
    return Optional.ofNullable(schema);
  }

  /** {@return the inbox table's DDL script, table named {@code outbox_inbox}; empty if none} */
  public Optional<String> inboxSchema() {
    return Optional.ofNullable(inboxSchema);
  }

  @Override
  public String toString() {
    return name;
  }

  /** Describes a dialect; {@link #build} checks it. Not thread-safe. */
  public static final class Builder {
    private final String name;
    private final Map<String, String> statements = new LinkedHashMap<>();
    private String now;
    private String nowPlusMicros;
    private String nowMinusMicros;
    private String rowLimit;
    private String oneRowTable;
    private ClaimCapability claim;
    private IdColumn ids = IdColumn.TEXT;
    private TimeColumn times = TimeColumn.OFFSET_DATE_TIME;
    private ErrorCodes errors = ErrorCodes.none();
    private String schema;
    private String inboxSchema;

    private Builder(String name) {
      if (name == null || name.isBlank()) {
        throw new OutboxConfigurationException("a dialect needs a name, for logs and errors");
      }
      this.name = name;
    }

    /**
     * Adds the statements of a statement file; a name already given is replaced.
     *
     * @param source where the text came from, for errors
     * @param text the file's text
     * @return this builder
     * @throws OutboxConfigurationException if the text is not a statement file
     */
    public Builder statements(String source, String text) {
      Map<String, String> parsed;
      try {
        parsed = CompiledDialect.parseStatements(source, text);
      } catch (IllegalStateException e) {
        throw new OutboxConfigurationException(
            "dialect " + name + ": " + e.getMessage() + " (see SqlDialect for the format)", e);
      }
      parsed.forEach(this::statement);
      return this;
    }

    /**
     * Adds the statements of a class-path resource, as {@link #statements(String, String)}.
     *
     * @param anchor the class the resource is read with ({@link Class#getResourceAsStream})
     * @param resource the resource's name, relative to the anchor's package unless it starts with
     *     {@code /}
     * @return this builder
     * @throws OutboxConfigurationException if it is missing or not a statement file
     */
    public Builder statementsFromResource(Class<?> anchor, String resource) {
      return statements(resource, read(anchor, resource));
    }

    /**
     * Sets one statement, replacing one of that name.
     *
     * @param statement the statement's name (see {@link SqlDialect}); {@code schema} and {@code
     *     inboxSchema} set the DDL scripts
     * @param sql its text
     * @return this builder
     */
    public Builder statement(String statement, String sql) {
      if (SCHEMA.equals(statement)) {
        return schema(sql);
      }
      if (INBOX_SCHEMA.equals(statement)) {
        return inboxSchema(sql);
      }
      statements.put(required(statement, "statement name"), required(sql, statement));
      return this;
    }

    /**
     * Drops a statement, for an optional step this database does not take (such as {@code
     * boundTransaction}).
     *
     * @param statement the statement's name
     * @return this builder
     */
    public Builder withoutStatement(String statement) {
      statements.remove(statement);
      return this;
    }

    /**
     * Sets the clock: every time comparison uses the database's, never a relay host's.
     *
     * @param now the current time, e.g. {@code now()}
     * @param nowPlusMicros that time plus {@code {micros}} microseconds (a BIGINT parameter; it may
     *     appear more than once)
     * @param nowMinusMicros that time minus {@code {micros}} microseconds
     * @return this builder
     */
    public Builder clock(String now, String nowPlusMicros, String nowMinusMicros) {
      this.now = required(now, "clock now");
      this.nowPlusMicros = withMark(nowPlusMicros, "{micros}", "clock nowPlusMicros");
      this.nowMinusMicros = withMark(nowMinusMicros, "{micros}", "clock nowMinusMicros");
      return this;
    }

    /**
     * Sets the row limit clause, written after {@code ORDER BY}.
     *
     * @param clause e.g. {@code LIMIT {n}} or {@code FETCH FIRST {n} ROWS ONLY}
     * @return this builder
     */
    public Builder rowLimit(String clause) {
      this.rowLimit = withMark(clause, "{n}", "rowLimit");
      return this;
    }

    /**
     * Names the one-row table that a {@code SELECT} of expressions only must read from, on a
     * database that refuses a {@code SELECT} without {@code FROM}; by default there is none.
     *
     * @param table e.g. {@code dual} (Oracle) or {@code SYSIBM.SYSDUMMY1} (Derby, Db2)
     * @return this builder
     */
    public Builder oneRowTable(String table) {
      this.oneRowTable = OutboxConfigurationException.requireNonNull(table, "table");
      return this;
    }

    /**
     * Sets how rows are claimed; each capability needs its own statements.
     *
     * @param capability the claim this database supports
     * @return this builder
     */
    public Builder claim(ClaimCapability capability) {
      this.claim = OutboxConfigurationException.requireNonNull(capability, "claim capability");
      return this;
    }

    /**
     * Sets how event ids are stored (default {@link IdColumn#TEXT}).
     *
     * @param how the id column's kind
     * @return this builder
     */
    public Builder ids(IdColumn how) {
      this.ids = OutboxConfigurationException.requireNonNull(how, "ids");
      return this;
    }

    /**
     * Sets how instants are stored (default {@link TimeColumn#OFFSET_DATE_TIME}).
     *
     * @param how the time columns' kind
     * @return this builder
     */
    public Builder times(TimeColumn how) {
      this.times = OutboxConfigurationException.requireNonNull(how, "times");
      return this;
    }

    /**
     * Sets what this database's error codes mean (default none).
     *
     * @param codes the codes
     * @return this builder
     */
    public Builder errors(ErrorCodes codes) {
      this.errors = OutboxConfigurationException.requireNonNull(codes, "errors");
      return this;
    }

    /**
     * Sets the outbox table's DDL: {@code ;}-separated statements, the table named {@code
     * outbox_event} (replaced by the name asked for; index names starting {@code outbox_event_}
     * take its unqualified part). A statement failing with an {@link
     * ErrorCodes.Kind#ALREADY_EXISTS} error is skipped, so DDL without {@code IF NOT EXISTS} may
     * run twice.
     *
     * @param ddl the script
     * @return this builder
     */
    public Builder schema(String ddl) {
      this.schema = required(ddl, "schema");
      return this;
    }

    /**
     * Sets the DDL as {@link #schema(String)}, from a class-path resource.
     *
     * @param anchor the class the resource is read with
     * @param resource the resource's name
     * @return this builder
     */
    public Builder schemaFromResource(Class<?> anchor, String resource) {
      return schema(read(anchor, resource));
    }

    /**
     * Sets the consumer inbox table's DDL, the table named {@code outbox_inbox}.
     *
     * @param ddl the script
     * @return this builder
     */
    public Builder inboxSchema(String ddl) {
      this.inboxSchema = required(ddl, "inboxSchema");
      return this;
    }

    /**
     * Sets the inbox DDL as {@link #inboxSchema(String)}, from a class-path resource.
     *
     * @param anchor the class the resource is read with
     * @param resource the resource's name
     * @return this builder
     */
    public Builder inboxSchemaFromResource(Class<?> anchor, String resource) {
      return inboxSchema(read(anchor, resource));
    }

    /**
     * {@return the dialect, checked}
     *
     * @throws OutboxConfigurationException naming the statement and what to do, if a statement the
     *     claim capability or every dialect needs is missing, if a statement takes other parameters
     *     than OutboxKit binds, names no statement OutboxKit runs, or leaves a placeholder unknown;
     *     or if the clock, row limit or claim capability is not set
     */
    public SqlDialect build() {
      if (now == null) {
        throw new OutboxConfigurationException(
            "dialect " + name + " has no clock: call clock(now, nowPlusMicros, nowMinusMicros)");
      }
      if (rowLimit == null) {
        throw new OutboxConfigurationException(
            "dialect " + name + " has no row limit: call rowLimit(\"LIMIT {n}\") or its equal");
      }
      if (claim == null) {
        throw new OutboxConfigurationException(
            "dialect "
                + name
                + " has no claim capability: call claim(RETURNING | SKIP_LOCKED |"
                + " CONDITIONAL_UPDATE) (CONDITIONAL_UPDATE where the database has no SKIP"
                + " LOCKED)");
      }
      SqlDialect dialect = new SqlDialect(this);
      CompiledDialect.of(dialect); // checks every statement now, not halfway through a claim
      return dialect;
    }

    private String withMark(String template, String mark, String what) {
      if (template == null || !template.contains(mark)) {
        throw new OutboxConfigurationException(
            "dialect " + name + ": " + what + " must contain " + mark + ", was " + template);
      }
      return template;
    }

    private String required(String value, String what) {
      if (value == null || value.isBlank()) {
        throw new OutboxConfigurationException("dialect " + name + ": " + what + " is empty");
      }
      return value;
    }

    private String read(Class<?> anchor, String resource) {
      try (InputStream in = anchor.getResourceAsStream(resource)) {
        if (in == null) {
          throw new OutboxConfigurationException(
              "dialect "
                  + name
                  + ": no resource "
                  + resource
                  + " next to "
                  + anchor.getName()
                  + " (a name relative to the class's package, or absolute with a leading /)");
        }
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new OutboxConfigurationException("dialect " + name + ": cannot read " + resource, e);
      }
    }
  }
}
