package dev.outboxkit.testing.jdbc;

import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.FreshDatabase;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The dialect contract kit on a real PostgreSQL server, with the POSTGRESQL preset. */
class PostgresDialectContractTest extends DialectContract {
  @RegisterExtension final FreshDatabase database = FreshDatabase.of(() -> Flavor.POSTGRES);

  @Override
  protected DataSource dataSource() {
    return database.get().dataSource();
  }

  @Override
  protected SqlDialect dialect() {
    return Dialect.POSTGRESQL.preset();
  }
}
