package dev.outboxkit.jms;

import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** A plain JMS consumer for the tests: reads what is on a queue into plain values. */
final class QueueReader {
  /**
   * Longest wait for the first message: a new consumer's first dispatch can take a busy broker
   * longer than the quiet time that ends a read.
   */
  private static final Duration FIRST_MESSAGE = Duration.ofSeconds(2);

  private QueueReader() {}

  /** What a test wants to know about one consumed message. */
  record Received(
      UUID eventId,
      String kind,
      String correlationId,
      String groupId,
      int deliveryMode,
      long expiration,
      Map<String, Object> properties,
      Map<String, String> headers,
      byte[] payload) {

    String property(String name) {
      Object v = properties.get(name);
      return v == null ? null : v.toString();
    }
  }

  /**
   * Reads from a queue until {@code expected} messages came, or nothing came for {@code quiet}
   * after a message (for the first one, at least {@link #FIRST_MESSAGE}).
   */
  static List<Received> read(ConnectionFactory factory, String queue, int expected, Duration quiet)
      throws JMSException {
    return read(factory, queue, expected, max(FIRST_MESSAGE, quiet), quiet);
  }

  /**
   * Reads whatever is on the queue now, waiting {@code quiet} for more after each message (for the
   * first one, at least {@link #FIRST_MESSAGE}).
   */
  static List<Received> readAll(ConnectionFactory factory, String queue, Duration quiet)
      throws JMSException {
    return read(factory, queue, Integer.MAX_VALUE, quiet);
  }

  /** The event ids of whatever is on the queue now, read as {@link #readAll} reads it. */
  static List<UUID> eventIds(ConnectionFactory factory, String queue, Duration quiet)
      throws JMSException {
    List<UUID> ids = new ArrayList<>();
    for (Received r : readAll(factory, queue, quiet)) {
      ids.add(r.eventId());
    }
    return ids;
  }

  /** Reads what is on the queue now, for a caller that polls: waits {@code quiet} at most. */
  static List<Received> poll(ConnectionFactory factory, String queue, Duration quiet)
      throws JMSException {
    return read(factory, queue, Integer.MAX_VALUE, quiet, quiet);
  }

  private static List<Received> read(
      ConnectionFactory factory, String queue, int expected, Duration first, Duration quiet)
      throws JMSException {
    List<Received> out = new ArrayList<>();
    try (Connection c = factory.createConnection()) {
      c.start();
      Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
      MessageConsumer consumer = s.createConsumer(s.createQueue(queue));
      while (out.size() < expected) {
        Message m = consumer.receive((out.isEmpty() ? first : quiet).toMillis());
        if (m == null) {
          break;
        }
        out.add(toReceived(m));
      }
    }
    return out;
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  static Received toReceived(Message m) throws JMSException {
    Map<String, Object> properties = new LinkedHashMap<>();
    Enumeration<?> names = m.getPropertyNames();
    while (names.hasMoreElements()) {
      String n = names.nextElement().toString();
      properties.put(n, m.getObjectProperty(n));
    }
    String kind = m instanceof TextMessage ? "text" : m instanceof BytesMessage ? "bytes" : "other";
    return new Received(
        JmsEvents.eventId(m).orElse(null),
        kind,
        m.getJMSCorrelationID(),
        m.getStringProperty("JMSXGroupID"),
        m.getJMSDeliveryMode(),
        m.getJMSExpiration(),
        properties,
        JmsEvents.headers(m),
        JmsEvents.payload(m));
  }
}
