package dev.outboxkit.jdbc;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import dev.outboxkit.jdbc.internal.TableName;
import java.time.Duration;

/**
 * The options every builder of this module shares (which table, in which dialect), and the rule of
 * the statement timeout, which most have. Package-private: its setters appear on each builder as
 * the builder's own.
 *
 * @param <B> the builder the setters return
 */
abstract class TableOptions<B extends TableOptions<B>> {
  TableName table;
  // The dialect the user named, or null to detect it from the database's metadata.
  SqlDialect dialect;

  TableOptions(String defaultTable) {
    this.table = TableName.of(defaultTable);
  }

  /**
   * Uses this table instead of the default ({@code outbox_event}; {@code outbox_inbox} for an
   * inbox), e.g. one outbox per bounded context.
   *
   * @param table {@code name} or {@code schema.name}, a plain SQL identifier
   * @return this builder
   * @throws OutboxConfigurationException if it is not one
   */
  public B table(String table) {
    this.table = TableName.of(table);
    return self();
  }

  /**
   * Uses this dialect instead of detecting it from the database's metadata, which saves the
   * metadata call and works behind a proxy or pool that hides the database's product name.
   *
   * @param dialect the database's dialect
   * @return this builder
   */
  public B dialect(Dialect dialect) {
    return dialect(OutboxConfigurationException.requireNonNull(dialect, "dialect").preset());
  }

  /**
   * Uses this dialect, a preset ({@link Dialect#preset()}) or one of your own, instead of detecting
   * it.
   *
   * @param dialect the database's dialect
   * @return this builder
   */
  public B dialect(SqlDialect dialect) {
    this.dialect = OutboxConfigurationException.requireNonNull(dialect, "dialect");
    return self();
  }

  /** Checks a statement timeout where a builder sets it. */
  static Duration checkedStatementTimeout(Duration statementTimeout) {
    if (statementTimeout == null || statementTimeout.isNegative() || statementTimeout.isZero()) {
      throw new OutboxConfigurationException(
          "statementTimeout must be positive, was " + statementTimeout);
    }
    return statementTimeout;
  }

  /** {@return this, as the builder the setters return} */
  abstract B self();
}
