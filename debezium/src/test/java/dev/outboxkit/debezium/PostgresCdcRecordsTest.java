package dev.outboxkit.debezium;

import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.TestDatabases;
import java.util.Properties;

/** The field-by-field comparison on PostgreSQL 14, Debezium's PostgreSQL connector, pgoutput. */
class PostgresCdcRecordsTest extends CdcRecordsContractTest {

  @Override
  TestDatabase createDatabase() {
    return TestDatabases.createLogicalReplication(getClass().getSimpleName());
  }

  @Override
  void prepareCapture(TestDatabase db) throws Exception {
    PostgresCapture.createPublication(db);
  }

  @Override
  Properties connector(TestDatabase db, String engine) {
    return PostgresCapture.connector(db, engine, "no_data");
  }

  /** The old README named no publication: Debezium's default, one for all tables, all changes. */
  @Override
  Properties oldReadmeConnector(TestDatabase db, String engine) {
    Properties p = super.oldReadmeConnector(db, engine);
    p.remove("publication.name");
    p.remove("publication.autocreate.mode");
    p.remove("snapshot.select.statement.overrides");
    p.remove("snapshot.select.statement.overrides." + db.name() + ".outbox_event");
    return p;
  }

  @Override
  void awaitCapturing(TestDatabase db, String engine) throws Exception {
    PostgresCapture.awaitSlotActive(db, engine);
  }

  @Override
  String describe() {
    return "PostgreSQL 14, Debezium 3.6.1 PostgreSQL connector (pgoutput)";
  }
}
