package dev.outboxkit.example.derby;

import dev.outboxkit.jdbc.dialect.SqlDialect;
import dev.outboxkit.testing.jdbc.DialectContract;
import javax.sql.DataSource;
import org.apache.derby.jdbc.EmbeddedDataSource;

/**
 * OutboxKit's dialect contract on embedded Derby with {@link DerbyDialect}: the proof that a
 * dialect written against the public SPI, for a database without SKIP LOCKED, keeps every
 * guarantee. The in-memory database lives as long as the test JVM; the kit drops its tables.
 */
class DerbyDialectContractTest extends DialectContract {
  private static final SqlDialect DERBY = DerbyDialect.create();
  private static final EmbeddedDataSource DATA_SOURCE = new EmbeddedDataSource();

  static {
    DATA_SOURCE.setDatabaseName("memory:derby-contract");
    DATA_SOURCE.setCreateDatabase("create");
  }

  @Override
  protected DataSource dataSource() {
    return DATA_SOURCE;
  }

  @Override
  protected SqlDialect dialect() {
    return DERBY;
  }

  /**
   * Derby cannot bound one transaction's lock waits: it has no lock timeout per session, a JDBC
   * query timeout does not interrupt a lock wait, and the embedded driver has no network timeout.
   * Only the database-wide {@code derby.locks.waitTimeout} ends a wait.
   */
  @Override
  protected boolean boundsStatementTime() {
    return false;
  }
}
