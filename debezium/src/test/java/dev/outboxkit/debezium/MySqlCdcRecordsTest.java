package dev.outboxkit.debezium;

import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.TestDatabases;
import java.util.Properties;

/**
 * The field-by-field comparison on genuine MySQL 8 (the test kit's embedded 8.0.15: binary log on,
 * ROW format, full row images, all MySQL 8 defaults), Debezium's MySQL connector reading the
 * binlog.
 */
class MySqlCdcRecordsTest extends CdcRecordsContractTest {
  @Override
  TestDatabase createDatabase() {
    return TestDatabases.create(Flavor.MYSQL, getClass().getSimpleName());
  }

  @Override
  void prepareCapture(TestDatabase db) {}

  @Override
  Properties connector(TestDatabase db, String engine) {
    return MySqlCapture.connector(db, engine, "no_data");
  }

  /** Nothing to see on the server: the first barrier (retried) shows the engines stream. */
  @Override
  void awaitCapturing(TestDatabase db, String engine) {}

  @Override
  String describe() {
    return "MySQL 8.0.15, Debezium 3.6.1 MySQL connector (binlog, ROW)";
  }
}
