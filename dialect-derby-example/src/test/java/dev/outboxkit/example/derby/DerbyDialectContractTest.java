package dev.outboxkit.example.derby;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.SQLExceptionOverride;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import dev.outboxkit.testing.jdbc.DialectContract;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import javax.sql.DataSource;
import org.apache.derby.jdbc.EmbeddedDataSource;

/**
 * OutboxKit's dialect contract on embedded Derby with {@link DerbyDialect}: the proof that a
 * dialect written against the public SPI, for a database without SKIP LOCKED, keeps every
 * guarantee. The pool and the in-memory database live as long as the test JVM (the kit drops its
 * tables in its own {@code @AfterAll}, which runs after any of this class).
 */
class DerbyDialectContractTest extends DialectContract {
  private static final SqlDialect DERBY = DerbyDialect.create();
  private static final HikariDataSource POOL = pool();

  @Override
  protected DataSource dataSource() {
    return POOL;
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

  private static HikariDataSource pool() {
    EmbeddedDataSource derby = new EmbeddedDataSource();
    derby.setDatabaseName("memory:derby-contract");
    derby.setCreateDatabase("create");
    HikariConfig config = new HikariConfig();
    config.setDataSource(derby);
    config.setMaximumPoolSize(16);
    config.setPoolName("derby-contract");
    // OutboxKit asks each new relay's or admin's first connection for a network timeout, which
    // embedded Derby does not implement (0A000); Hikari takes that state for a broken connection
    // and closes it under the relay. A missing feature leaves the connection usable.
    config.setExceptionOverride(
        new SQLExceptionOverride() {
          // The interface's own nested type is named Override: the annotation needs its full name.
          @java.lang.Override
          public SQLExceptionOverride.Override adjudicate(SQLException e) {
            return e instanceof SQLFeatureNotSupportedException
                ? SQLExceptionOverride.Override.DO_NOT_EVICT
                : SQLExceptionOverride.Override.CONTINUE_EVICT;
          }
        });
    return new HikariDataSource(config);
  }
}
