package dev.outboxkit.jdbc.dialect;

import dev.outboxkit.jdbc.Dialect;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;

/**
 * A provider found through {@link java.util.ServiceLoader} (listed in this module's test
 * resources): it answers only for H2 databases whose URL carries its mark, so the other tests'
 * databases keep their preset.
 */
public final class MarkedDatabaseProvider implements DialectProvider {
  static final String MARK = "service-loaded-dialect";
  static final SqlDialect DIALECT =
      Dialect.H2.preset().toBuilder("H2, found by ServiceLoader").build();

  /** For {@link java.util.ServiceLoader}. */
  public MarkedDatabaseProvider() {}

  @Override
  public SqlDialect dialectFor(DatabaseMetaData metadata) throws SQLException {
    return metadata.getURL().contains(MARK) ? DIALECT : null;
  }
}
