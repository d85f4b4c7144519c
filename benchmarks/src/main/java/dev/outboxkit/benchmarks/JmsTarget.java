package dev.outboxkit.benchmarks;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.Transport;
import dev.outboxkit.jms.JmsDestination;
import dev.outboxkit.jms.JmsEvents;
import dev.outboxkit.jms.JmsTransport;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.apache.activemq.broker.BrokerService;
import org.apache.activemq.broker.TransportConnector;
import org.apache.activemq.command.ActiveMQQueue;

/**
 * Embedded ActiveMQ Classic with its KahaDB store; raw client: a plain JMS producer on a transacted
 * session (the transport's session mode), persistent messages, one commit per batch.
 */
final class JmsTarget implements BrokerTarget {
  private final BrokerService broker;
  private final File dataDir;
  private final String url;
  private final AtomicInteger queues = new AtomicInteger();

  private JmsTarget(BrokerService broker, File dataDir, String url) {
    this.broker = broker;
    this.dataDir = dataDir;
    this.url = url;
  }

  static JmsTarget start() throws Exception {
    File dataDir =
        Files.createTempDirectory(Files.createDirectories(Path.of("target")), "activemq-bench-")
            .toFile();
    BrokerService b = new BrokerService();
    b.setBrokerName("bench");
    b.setPersistent(true);
    b.setDataDirectoryFile(dataDir);
    b.setUseJmx(false);
    b.setAdvisorySupport(false);
    b.setUseShutdownHook(false);
    b.setSchedulerSupport(false);
    // Modest limits: the defaults (100 GB of store) exceed many disks and make the broker warn.
    b.getSystemUsage().getStoreUsage().setLimit(1L << 30);
    b.getSystemUsage().getTempUsage().setLimit(1L << 30);
    TransportConnector connector = b.addConnector("tcp://127.0.0.1:0");
    b.start();
    b.waitUntilStarted();
    return new JmsTarget(b, dataDir, "tcp://127.0.0.1:" + connector.getConnectUri().getPort());
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
    return JmsTransport.builder(new ActiveMQConnectionFactory(url))
        .name("bench")
        .destinationRouter(e -> JmsDestination.queue(destination))
        .build();
  }

  @Override
  public double sendRaw(String destination, List<OutboxEvent> events, int batchSize)
      throws JMSException {
    try (Connection c = new ActiveMQConnectionFactory(url).createConnection()) {
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
  public long arrived(String destination) throws Exception {
    return broker
        .getDestination(new ActiveMQQueue(destination))
        .getDestinationStatistics()
        .getMessages()
        .getCount();
  }

  /** Stops the broker and deletes its store (KahaDB preallocates 32 MB journal files). */
  @Override
  public void close() {
    try {
      broker.stop();
    } catch (Exception e) {
      throw new IllegalStateException("ActiveMQ did not stop", e);
    }
    broker.waitUntilStopped();
    try (Stream<Path> files = Files.walk(dataDir.toPath())) {
      files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
    } catch (IOException e) {
      // leftovers under target/ are harmless; mvn clean removes them
    }
  }
}
