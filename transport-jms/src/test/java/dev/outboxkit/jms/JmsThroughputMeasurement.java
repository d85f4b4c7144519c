package dev.outboxkit.jms;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.TestDatabases;
import dev.outboxkit.testkit.activemq.ActiveMqTestBroker;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Message;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.junit.jupiter.api.Test;

/**
 * Not a test: prints relay-to-JMS throughput beside a raw JMS producer sending the same messages
 * (same broker, same batch size, one transaction per batch) in the same run. Asserts nothing and is
 * not part of the normal test run (Surefire only picks up {@code *Test} classes). Run it with:
 *
 * <pre>
 * mvn -pl transport-jms test -Dtest=JmsThroughputMeasurement -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 *
 * Set {@code OUTBOXKIT_TEST_POSTGRES_URL} / {@code OUTBOXKIT_TEST_MYSQL_URL} to use local servers.
 * The figures land in {@code target/surefire-reports/dev.outboxkit.jms.JmsThroughputMeasurement-
 * output.txt}. Each round measures, on the same broker: one relay draining 5,000 appended events in
 * ordered and in unordered mode; the transport alone (no database); and a plain transacted JMS
 * producer sending the same messages with the same properties.
 */
class JmsThroughputMeasurement {
  private static final int EVENTS = 5_000;
  private static final int BATCH = 100;
  private static final int AGGREGATES = 50;
  private static final int ROUNDS = 3;

  @Test
  void measure_postgres() throws Exception {
    measure(Flavor.POSTGRES);
  }

  @Test
  void measure_mariadb() throws Exception {
    measure(Flavor.MARIADB);
  }

  private void measure(Flavor flavor) throws Exception {
    try (TestDatabase db = TestDatabases.create(flavor, "jmsbench");
        ActiveMqTestBroker broker = ActiveMqTestBroker.startPersistent("bench-" + flavor)) {
      try (java.sql.Connection c = db.dataSource().getConnection()) {
        OutboxSchema.create(c);
      }
      System.out.printf(
          "%n== %s: %d events, %d aggregates, batch %d, persistent KahaDB broker ==%n",
          flavor, EVENTS, AGGREGATES, BATCH);
      for (int round = 1; round <= ROUNDS; round++) {
        String type = "Bench" + round;
        List<OutboxEvent> events = events(type);
        double ordered = relay(db, broker, events, true);
        double unordered = relay(db, broker, events(type + "u"), false);
        double transportOnly = transportOnly(broker, events);
        double raw = raw(broker, events, "raw." + type);
        System.out.printf(
            "round %d: relay->JMS ordered %,.0f events/s, unordered %,.0f events/s |"
                + " JmsTransport.sendBatch alone %,.0f events/s | raw JMS producer %,.0f msgs/s |"
                + " relay/raw %.2f (ordered) %.2f (unordered), transport/raw %.2f%n",
            round,
            ordered,
            unordered,
            transportOnly,
            raw,
            ordered / raw,
            unordered / raw,
            transportOnly / raw);
      }
    }
  }

  /** Appends the events, then times one relay draining them all through a JMS transport. */
  private static double relay(
      TestDatabase db, ActiveMqTestBroker broker, List<OutboxEvent> events, boolean ordered)
      throws Exception {
    append(db, events);
    double rate;
    try (JmsTransport transport =
            JmsTransport.builder(new ActiveMQConnectionFactory(broker.url()))
                .name("bench")
                .build();
        OutboxRelay r =
            OutboxRelay.builder(db.dataSource(), transport)
                .name("bench")
                .batchSize(BATCH)
                .ordered(ordered)
                .build()) {
      long start = System.nanoTime();
      r.drain();
      rate = rate(start);
    }
    long published = OutboxAdmin.create(db.dataSource()).count(EventStatus.PUBLISHED);
    if (published != events.size()) {
      System.out.printf("  (only %d of %d published)%n", published, events.size());
    }
    try (java.sql.Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("DELETE FROM outbox_event");
    }
    return rate;
  }

  private static List<OutboxEvent> events(String type) {
    List<OutboxEvent> events = new ArrayList<>(EVENTS);
    for (int i = 0; i < EVENTS; i++) {
      events.add(
          OutboxEvent.builder(type, "agg-" + (i % AGGREGATES), "OrderChanged")
              .payload("{\"order\":" + i + ",\"total\":42.5,\"currency\":\"EUR\"}")
              .header("correlation-id", "c-" + i)
              .build());
    }
    return events;
  }

  private static void append(TestDatabase db, List<OutboxEvent> events) throws Exception {
    try (java.sql.Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < events.size(); i += 500) {
        Outbox.appendAll(c, events.subList(i, Math.min(events.size(), i + 500)));
        c.commit();
      }
    }
  }

  /** The transport alone, no database: same events, same batches. */
  private static double transportOnly(ActiveMqTestBroker broker, List<OutboxEvent> events) {
    try (JmsTransport transport =
        JmsTransport.builder(new ActiveMQConnectionFactory(broker.url()))
            .name("bench-direct")
            .destinationRouter(e -> JmsDestination.queue("direct." + e.aggregateType()))
            .build()) {
      long start = System.nanoTime();
      for (int i = 0; i < events.size(); i += BATCH) {
        List<OutboxMessage> batch = new ArrayList<>(BATCH);
        for (OutboxEvent e : events.subList(i, Math.min(events.size(), i + BATCH))) {
          batch.add(OutboxMessage.of(e, 1));
        }
        transport.sendBatch(batch);
      }
      return rate(start);
    }
  }

  /**
   * A plain JMS producer, as an application would write it: one transacted session, messages with
   * the same body and properties, committed every {@value #BATCH}.
   */
  private static double raw(ActiveMqTestBroker broker, List<OutboxEvent> events, String queue)
      throws Exception {
    try (Connection c = new ActiveMQConnectionFactory(broker.url()).createConnection()) {
      Session s = c.createSession(true, Session.SESSION_TRANSACTED);
      MessageProducer p = s.createProducer(null);
      Queue q = s.createQueue(queue);
      long start = System.nanoTime();
      int inTx = 0;
      for (OutboxEvent e : events) {
        BytesMessage m = s.createBytesMessage();
        m.writeBytes(e.payload());
        m.setJMSCorrelationID(e.headers().get("correlation-id"));
        m.setStringProperty("JMSXGroupID", e.aggregateId());
        m.setStringProperty(JmsEvents.EVENT_ID, e.id().toString());
        m.setStringProperty(JmsEvents.EVENT_TYPE, e.eventType());
        m.setStringProperty(JmsEvents.AGGREGATE_TYPE, e.aggregateType());
        m.setStringProperty(JmsEvents.AGGREGATE_ID, e.aggregateId());
        m.setIntProperty(JmsEvents.SCHEMA_VERSION, e.schemaVersion());
        m.setStringProperty(JmsEvents.CONTENT_TYPE, e.contentType());
        m.setStringProperty(JmsEvents.OCCURRED_AT, e.occurredAt().toString());
        for (Map.Entry<String, String> h : e.headers().entrySet()) {
          m.setStringProperty(JmsEvents.propertyName(h.getKey()), h.getValue());
        }
        p.send(q, m, DeliveryMode.PERSISTENT, Message.DEFAULT_PRIORITY, 0);
        if (++inTx == BATCH) {
          s.commit();
          inTx = 0;
        }
      }
      if (inTx > 0) {
        s.commit();
      }
      return rate(start);
    }
  }

  private static double rate(long startNanos) {
    double seconds = Duration.ofNanos(System.nanoTime() - startNanos).toNanos() / 1e9;
    return EVENTS / seconds;
  }
}
