package dev.outboxkit.testing.jdbc;

import dev.outboxkit.jdbc.Dialect;
import org.testcontainers.oracle.OracleContainer;

/**
 * The dialect contract kit on a real Oracle server with the ORACLE preset (a preview): the server
 * {@code OUTBOXKIT_TEST_ORACLE_URL} names, else a Testcontainers one where Docker runs; skipped
 * where neither is, as on this project's CI machines. The proof on your server:
 *
 * <pre>
 * OUTBOXKIT_TEST_ORACLE_URL='jdbc:...' mvn -B -pl testing-jdbc -am verify \
 *     -Dtest=OracleDialectContractTest -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
class OracleDialectContractTest extends VendorDialectContract {
  OracleDialectContractTest() {
    super(
        new VendorServer(
            "Oracle",
            "OUTBOXKIT_TEST_ORACLE_URL",
            () -> new OracleContainer("gvenzl/oracle-free:23-slim-faststart")),
        Dialect.ORACLE);
  }
}
