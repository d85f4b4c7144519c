package dev.outboxkit.testing.jdbc;

import dev.outboxkit.jdbc.Dialect;
import org.testcontainers.mssqlserver.MSSQLServerContainer;

/**
 * The dialect contract kit on a real SQL Server server with the SQLSERVER preset (a preview): the
 * server {@code OUTBOXKIT_TEST_SQLSERVER_URL} names, else a Testcontainers one where Docker runs;
 * skipped where neither is, as on this project's CI machines. The proof on your server:
 *
 * <pre>
 * OUTBOXKIT_TEST_SQLSERVER_URL='jdbc:...' mvn -B -pl testing-jdbc -am verify \
 *     -Dtest=SqlServerDialectContractTest -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
class SqlServerDialectContractTest extends VendorDialectContract {
  SqlServerDialectContractTest() {
    super(
        new VendorServer(
            "SQL Server",
            "OUTBOXKIT_TEST_SQLSERVER_URL",
            () ->
                new MSSQLServerContainer("mcr.microsoft.com/mssql/server:2022-latest")
                    .acceptLicense()),
        Dialect.SQLSERVER);
  }
}
