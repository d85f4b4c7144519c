package dev.outboxkit.benchmarks;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.Transport;
import dev.outboxkit.jms.JmsDestination;
import dev.outboxkit.jms.JmsEvents;
import dev.outboxkit.jms.JmsTransport;
import dev.outboxkit.testkit.activemq.ActiveMqTestBroker;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.activemq.ActiveMQConnectionFactory;

/**
 * Embedded ActiveMQ Classic with its KahaDB store; raw client: a plain JMS producer on a transacted
 * session (the transport's session mode), persistent messages, one commit per batch.
 */
final class JmsTarget implements BrokerTarget {
  private final ActiveMqTestBroker broker;
  private final AtomicInteger queues = new AtomicInteger();

  private JmsTarget(ActiveMqTestBroker broker) {
    this.broker = broker;
  }

  static JmsTarget start() {
    return new JmsTarget(ActiveMqTestBroker.startPersistent("bench"));
  }

  @Override
  public String name() {
    return "JMS";
  }

  @Override
  public String describe() {
    return "JMS: embedded ActiveMQ Classic with its KahaDB store, a fresh queue per round,"
        + " persistent delivery; raw client: a plain JMS producer on a transacted session (the"
        + " transport's mode) with the same body and properties, one commit per batch";
  }

  @Override
  public int events(boolean quick) {
    return quick ? 2_000 : 10_000;
  }

  @Override
  public String newDestination() {
    return "bench." + queues.incrementAndGet();
  }

  @Override
  public Transport transport(String destination) {
    return JmsTransport.builder(new ActiveMQConnectionFactory(broker.url()))
        .name("bench")
        .destinationRouter(e -> JmsDestination.queue(destination))
        .build();
  }

  @Override
  public double sendRaw(String destination, List<OutboxEvent> events, int batchSize)
      throws JMSException {
    try (Connection c = new ActiveMQConnectionFactory(broker.url()).createConnection()) {
      Session s = c.createSession(true, Session.SESSION_TRANSACTED);
      MessageProducer p = s.createProducer(null);
      Queue q = s.createQueue(destination);
      long start = System.nanoTime();
      int inTx = 0;
      for (OutboxEvent e : events) {
        p.send(q, message(s, e), DeliveryMode.PERSISTENT, Message.DEFAULT_PRIORITY, 0);
        if (++inTx == batchSize) {
          s.commit();
          inTx = 0;
        }
      }
      if (inTx > 0) {
        s.commit();
      }
      return (System.nanoTime() - start) / 1e9;
    }
  }

  /** The message the transport sends: same body, correlation id, group and properties. */
  private static Message message(Session s, OutboxEvent e) throws JMSException {
    BytesMessage m = s.createBytesMessage();
    m.writeBytes(e.payload());
    m.setJMSCorrelationID(e.id().toString());
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
    return m;
  }

  @Override
  public long arrived(String destination) {
    return broker.queueDepth(destination);
  }

  /** Stops the broker and deletes its store. */
  @Override
  public void close() {
    broker.close();
  }
}
