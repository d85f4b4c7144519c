package dev.outboxkit.testing.jdbc;

import dev.outboxkit.jdbc.dialect.SqlDialect;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.FreshDatabase;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The dialect contract kit on a fresh database of one of the flavours this project's machines run:
 * a subclass per database and dialect names the two, so each reports as a test class of its own.
 */
abstract class FlavorDialectContract extends DialectContract {
  @RegisterExtension final FreshDatabase database;
  private final SqlDialect dialect;

  FlavorDialectContract(Flavor flavor, SqlDialect dialect) {
    this.database = FreshDatabase.of(() -> flavor);
    this.dialect = dialect;
  }

  @Override
  protected DataSource dataSource() {
    return database.get().dataSource();
  }

  @Override
  protected SqlDialect dialect() {
    return dialect;
  }
}
