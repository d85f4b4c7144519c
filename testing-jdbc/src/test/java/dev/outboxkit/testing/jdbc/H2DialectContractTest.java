package dev.outboxkit.testing.jdbc;

import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.FreshDatabase;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The dialect contract kit on H2 in memory, with the H2 preset. */
class H2DialectContractTest extends DialectContract {
  @RegisterExtension final FreshDatabase database = FreshDatabase.of(() -> Flavor.H2);

  @Override
  protected DataSource dataSource() {
    return database.get().dataSource();
  }

  @Override
  protected SqlDialect dialect() {
    return Dialect.H2.preset();
  }

  /** H2 has no per-transaction time bound: its own lock timeout ends lock waits, not the relay. */
  @Override
  protected boolean boundsStatementTime() {
    return false;
  }
}
