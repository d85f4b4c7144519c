package dev.outboxkit.testing.jdbc;

import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The dialect contract kit on a {@link VendorServer} with its preview preset: a subclass per vendor
 * names the two, so each vendor reports (or is skipped) as a test class of its own.
 */
abstract class VendorDialectContract extends DialectContract {
  @RegisterExtension final VendorServer server;
  private final SqlDialect dialect;

  VendorDialectContract(VendorServer server, Dialect preset) {
    this.server = server;
    this.dialect = preset.preset();
  }

  @Override
  protected DataSource dataSource() {
    return server.dataSource();
  }

  @Override
  protected SqlDialect dialect() {
    return dialect;
  }
}
