package dev.outboxkit.debezium;

import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.TestDatabases;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The field-by-field comparison on genuine MySQL 8 (the test kit's embedded 8.0.15: binary log on,
 * ROW format, full row images, all MySQL 8 defaults), Debezium's MySQL connector reading the
 * binlog.
 */
class MySqlCdcRecordsTest extends CdcRecordsContractTest {
  private static final Pattern URL = Pattern.compile("jdbc:mysql://([^:/]+):(\\d+)/([^?]+).*");

  @Override
  TestDatabase createDatabase() {
    return TestDatabases.create(Flavor.MYSQL, getClass().getSimpleName());
  }

  @Override
  void prepareCapture(TestDatabase db) {}

  @Override
  Properties connector(TestDatabase db, String engine) {
    Matcher url = URL.matcher(db.jdbcUrl());
    if (!url.matches()) {
      throw new IllegalStateException("not a MySQL URL: " + db.jdbcUrl());
    }
    Properties p = new Properties();
    p.put("connector.class", "io.debezium.connector.mysql.MySqlConnector");
    p.put("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
    p.put("offset.flush.interval.ms", "100");
    p.put("database.hostname", url.group(1));
    p.put("database.port", url.group(2));
    p.put("database.user", db.user());
    p.put("database.password", db.password() == null ? "" : db.password());
    // Each engine is a replica of its own to the server.
    p.put(
        "database.server.id",
        Integer.toString(ThreadLocalRandom.current().nextInt(10_000, 1 << 30)));
    p.put("topic.prefix", engine);
    p.put("database.include.list", url.group(3));
    p.put("table.include.list", url.group(3) + ".outbox_event");
    p.put("schema.history.internal", "io.debezium.relational.history.MemorySchemaHistory");
    p.put("include.schema.changes", "false");
    p.put("snapshot.mode", "no_data");
    p.put("tombstones.on.delete", "false");
    return p;
  }

  /** Nothing to see on the server: the first barrier (retried) shows the engines stream. */
  @Override
  void awaitCapturing(TestDatabase db, String engine) {}

  @Override
  String describe() {
    return "MySQL 8.0.15, Debezium 3.6.1 MySQL connector (binlog, ROW)";
  }
}
