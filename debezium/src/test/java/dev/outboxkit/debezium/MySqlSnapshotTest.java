package dev.outboxkit.debezium;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.TestDatabases;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The README's MySQL snapshot settings at a cut-over: the connector's first start publishes the
 * rows the relay left unfinished, in append order, and nothing it finished or the application
 * withdrew; then it streams.
 */
class MySqlSnapshotTest {
  private KafkaTestBroker broker;
  private TestDatabase db;
  private CdcEngine engine;

  @BeforeEach
  void setUp() throws Exception {
    db = TestDatabases.create(Flavor.MYSQL, getClass().getSimpleName());
    broker = KafkaTestBroker.startNew("mysql-snapshot");
    broker.createTopic("outbox.event.Acct", 3, Map.of());
    broker.createTopic("outbox.event.Marker", 1, Map.of());
    try (Connection c = db.connect()) {
      OutboxSchema.create(c);
    }
  }

  @AfterEach
  void tearDown() {
    if (engine != null) {
      engine.close();
    }
    if (broker != null) {
      broker.close();
    }
    if (db != null) {
      db.close();
    }
  }

  @Test
  void first_start_publishes_the_unfinished_rows_in_append_order_then_streams() throws Exception {
    List<OutboxEvent> backlog = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      backlog.add(
          OutboxEvent.builder("Acct", "a" + (i % 3), "Posted")
              .payload("{\"n\":" + i + "}")
              .build());
    }
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      Outbox.appendAll(c, backlog);
      c.commit();
      c.setAutoCommit(true);
      // The relay's work, as it leaves the table: some finished, one claimed by a relay that died.
      s.executeUpdate("UPDATE outbox_event SET status = 'PUBLISHED' WHERE seq % 5 = 0");
      s.executeUpdate("UPDATE outbox_event SET status = 'DEAD' WHERE seq % 5 = 1");
      s.executeUpdate("UPDATE outbox_event SET status = 'EXPIRED' WHERE seq % 5 = 2");
      s.executeUpdate("UPDATE outbox_event SET status = 'IN_FLIGHT' WHERE seq = 4");
      // Withdrawn before the cut-over: never to be published.
      s.executeUpdate("UPDATE outbox_event SET status = 'CANCELLED' WHERE seq % 10 = 3");
      s.executeUpdate("UPDATE outbox_event SET status = 'SUPERSEDED' WHERE seq % 10 = 8");
    }
    List<String> unfinished = new ArrayList<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT id FROM outbox_event WHERE status IN ('PENDING', 'IN_FLIGHT')"
                    + " ORDER BY seq")) {
      while (rs.next()) {
        unfinished.add(rs.getString(1));
      }
    }

    String name = "okt_mysql_snapshot_" + Long.toHexString(System.nanoTime());
    Properties connector = MySqlCapture.connector(db, name, "initial");
    connector.put("transforms", "outbox");
    connector.put("transforms.outbox.type", OutboxEventRouter.class.getName());
    engine =
        CdcEngine.start(
            name, connector, CdcRecordsContractTest.moduleWorker(), broker.bootstrapServers(), "");
    Barriers.firstBarrier(db.dataSource(), engine);
    OutboxEvent streamed =
        OutboxEvent.builder("Acct", "a0", "Posted").payload("{\"n\":40}").build();
    Barriers.append(db.dataSource(), streamed);
    engine.awaitEvent(streamed.id().toString(), Duration.ofSeconds(60));

    List<String> published = new ArrayList<>();
    for (SourceRecord r : engine.published()) {
      if (r.topic().equals("outbox.event.Acct")) {
        published.add(CdcEngine.eventId(r));
      }
    }
    List<String> expected = new ArrayList<>(unfinished);
    expected.add(streamed.id().toString());
    assertThat(unfinished).hasSize(8); // 7 PENDING and 1 IN_FLIGHT of 40
    assertThat(published).containsExactlyElementsOf(expected);
  }
}
