package dev.outboxkit.samples.jta;

import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestDatabase;
import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import io.agroal.narayana.NarayanaTransactionIntegration;
import javax.sql.DataSource;

/**
 * Agroal enlisting in Narayana: a pool of plain (non-XA) driver connections, each enlisted as the
 * transaction's one resource (one-phase commit). An enlisted connection reports auto-commit off.
 */
abstract class AgroalJtaContractTest extends JtaContractTest {
  @Override
  protected String pool() {
    return "Agroal";
  }

  @Override
  protected boolean reportsAutoCommitWhenEnlisted() {
    return false;
  }

  @Override
  protected DataSource jtaDataSource(TestDatabase db) throws Exception {
    boolean postgres = flavor() == Flavor.POSTGRES;
    return AgroalDataSource.from(
        new AgroalDataSourceConfigurationSupplier()
            .connectionPoolConfiguration(
                cp ->
                    cp.maxSize(5)
                        .transactionIntegration(
                            new NarayanaTransactionIntegration(
                                tm, Narayana.synchronizationRegistry()))
                        .connectionFactoryConfiguration(
                            cf -> {
                              cf.jdbcUrl(db.jdbcUrl())
                                  .connectionProviderClass(
                                      postgres
                                          ? org.postgresql.Driver.class
                                          : com.mysql.cj.jdbc.Driver.class)
                                  // A session time zone unlike the JVM's and UTC.
                                  .initialSql(
                                      postgres
                                          ? "SET TIME ZONE 'Asia/Kathmandu'"
                                          : "SET time_zone = '+05:45'");
                              if (db.user() != null) {
                                cf.principal(new NamePrincipal(db.user()));
                              }
                              if (db.password() != null) {
                                cf.credential(new SimplePassword(db.password()));
                              }
                              return cf;
                            })));
  }
}
