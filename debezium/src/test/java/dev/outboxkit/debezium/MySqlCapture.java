package dev.outboxkit.debezium;

import dev.outboxkit.testkit.TestDatabase;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The README's MySQL connector properties, on a test database of the test kit's MySQL 8. */
final class MySqlCapture {
  private static final Pattern URL = Pattern.compile("jdbc:mysql://([^:/]+):(\\d+)/([^?]+).*");

  private MySqlCapture() {}

  static Properties connector(TestDatabase db, String engine, String snapshotMode) {
    Matcher url = URL.matcher(db.jdbcUrl());
    if (!url.matches()) {
      throw new IllegalStateException("not a MySQL URL: " + db.jdbcUrl());
    }
    String table = url.group(3) + ".outbox_event";
    Properties p = new Properties();
    p.put("connector.class", "io.debezium.connector.mysql.MySqlConnector");
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
    p.put("table.include.list", table);
    // In memory here; the README's Kafka topic in production.
    p.put("schema.history.internal", "io.debezium.relational.history.MemorySchemaHistory");
    p.put("include.schema.changes", "false");
    p.put("snapshot.mode", snapshotMode);
    p.put("snapshot.select.statement.overrides", table);
    p.put(
        "snapshot.select.statement.overrides." + table,
        "SELECT * FROM " + table + " WHERE status IN ('PENDING', 'IN_FLIGHT') ORDER BY seq");
    p.put("tombstones.on.delete", "false");
    return p;
  }
}
