package dev.outboxkit.debezium;

import dev.outboxkit.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PostgreSQL side of the README's CDC set-up, for the tests: the insert-only publication and
 * the connector properties, on a test database (a schema) of the test kit's {@code
 * wal_level=logical} server.
 */
final class PostgresCapture {
  private static final Pattern URL = Pattern.compile("jdbc:postgresql://([^:/]+):(\\d+)/([^?]+).*");

  private PostgresCapture() {}

  /** The publication the README has users create: the outbox table, inserts only. */
  static String publication(TestDatabase db) {
    return db.name() + "_outbox";
  }

  static void createPublication(TestDatabase db) throws Exception {
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE PUBLICATION "
              + publication(db)
              + " FOR TABLE "
              + db.name()
              + ".outbox_event WITH (publish = 'insert')");
    }
  }

  /**
   * The connector properties the README documents (slot and topic prefix per engine), with the
   * given snapshot mode. The slot is dropped when the engine stops, to leave the server clean.
   */
  static Properties connector(TestDatabase db, String engine, String snapshotMode) {
    Matcher url = URL.matcher(db.jdbcUrl());
    if (!url.matches()) {
      throw new IllegalStateException("not a PostgreSQL URL: " + db.jdbcUrl());
    }
    String table = db.name() + ".outbox_event";
    Properties p = new Properties();
    p.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    p.put("database.hostname", url.group(1));
    p.put("database.port", url.group(2));
    p.put("database.dbname", url.group(3));
    p.put("database.user", db.user());
    p.put("database.password", db.password() == null ? "" : db.password());
    p.put("topic.prefix", engine);
    p.put("plugin.name", "pgoutput");
    p.put("slot.name", engine);
    p.put("slot.drop.on.stop", "true");
    p.put("publication.name", publication(db));
    p.put("publication.autocreate.mode", "disabled");
    p.put("table.include.list", table);
    p.put("snapshot.mode", snapshotMode);
    p.put("tombstones.on.delete", "false");
    p.put(
        "snapshot.select.statement.overrides." + table,
        "SELECT * FROM " + table + " WHERE status IN ('PENDING', 'IN_FLIGHT') ORDER BY seq");
    p.put("snapshot.select.statement.overrides", table);
    return p;
  }

  /** Waits until the engine's replication slot is active: later commits reach the engine. */
  static void awaitSlotActive(TestDatabase db, String slot) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    try (Connection c = db.connect();
        PreparedStatement s =
            c.prepareStatement("SELECT active FROM pg_replication_slots WHERE slot_name = ?")) {
      s.setString(1, slot);
      while (true) {
        try (ResultSet rs = s.executeQuery()) {
          if (rs.next() && rs.getBoolean(1)) {
            return;
          }
        }
        if (System.nanoTime() > deadline) {
          throw new AssertionError("replication slot " + slot + " not active after 60 s");
        }
        Thread.sleep(50);
      }
    }
  }
}
