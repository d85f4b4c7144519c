package dev.outboxkit.jms.internal;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jms.JmsEvents;
import jakarta.jms.BytesMessage;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.Session;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * Turns an event into a JMS message as described in {@link JmsEvents}: body, correlation id, group
 * id, properties. Builds messages on the session that sends them; never touches the network.
 */
public final class MessageFactory {
  private final boolean textMessages;
  private final Clock clock;

  /**
   * @param textMessages send textual payloads as {@code TextMessage}
   * @param clock for time-to-live of events that expire
   */
  public MessageFactory(boolean textMessages, Clock clock) {
    this.textMessages = textMessages;
    this.clock = clock;
  }

  /** An event that cannot be sent as it is; the message says why (no payload, no values). */
  public static final class EventRefusedException extends Exception {
    private static final long serialVersionUID = 1L;

    EventRefusedException(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * Checks what can be checked without a session: a user header whose property name is one of the
   * transport's own would be ambiguous.
   *
   * @throws EventRefusedException naming the header
   */
  public static void checkHeaders(OutboxEvent event) throws EventRefusedException {
    for (String header : event.headers().keySet()) {
      String property = PropertyNames.encode(header);
      if (JmsEvents.RESERVED_PROPERTIES.contains(property)) {
        throw new EventRefusedException(
            "header '"
                + header
                + "' maps to the JMS property '"
                + property
                + "', which the transport sets itself; rename the header");
      }
    }
  }

  /**
   * Builds the message.
   *
   * @param session the session that will send it
   * @param event the event
   * @return the message, ready to send
   * @throws EventRefusedException if a header collides with a reserved property
   * @throws JMSException if the provider refuses a value or the session is unusable
   */
  public Message build(Session session, OutboxEvent event)
      throws JMSException, EventRefusedException {
    checkHeaders(event);
    Message message = body(session, event);
    message.setJMSCorrelationID(correlationId(event));
    // Message groups: brokers that support them (ActiveMQ, Artemis, IBM MQ, ...) deliver one
    // group to one consumer at a time, which is what keeps an aggregate's order with competing
    // consumers.
    message.setStringProperty("JMSXGroupID", event.aggregateId());
    message.setStringProperty(JmsEvents.EVENT_ID, event.id().toString());
    message.setStringProperty(JmsEvents.EVENT_TYPE, event.eventType());
    message.setStringProperty(JmsEvents.AGGREGATE_TYPE, event.aggregateType());
    message.setStringProperty(JmsEvents.AGGREGATE_ID, event.aggregateId());
    message.setIntProperty(JmsEvents.SCHEMA_VERSION, event.schemaVersion());
    message.setStringProperty(JmsEvents.CONTENT_TYPE, event.contentType());
    message.setStringProperty(JmsEvents.OCCURRED_AT, event.occurredAt().toString());
    if (event.tenant().isPresent()) {
      message.setStringProperty(JmsEvents.TENANT, event.tenant().get());
    }
    if (event.aggregateVersion().isPresent()) {
      message.setLongProperty(JmsEvents.AGGREGATE_VERSION, event.aggregateVersion().getAsLong());
    }
    for (Map.Entry<String, String> h : event.headers().entrySet()) {
      message.setStringProperty(PropertyNames.encode(h.getKey()), h.getValue());
    }
    return message;
  }

  /**
   * Time-to-live for the send: until the event's {@code expiresAt}, at least 1 ms (0 would mean
   * "never expires"); 0 for an event without one.
   */
  public long timeToLive(OutboxEvent event) {
    Optional<Instant> expires = event.expiresAt();
    if (expires.isEmpty()) {
      return Message.DEFAULT_TIME_TO_LIVE;
    }
    long millis = Duration.between(clock.instant(), expires.get()).toMillis();
    return Math.max(1, millis);
  }

  private Message body(Session session, OutboxEvent event) throws JMSException {
    if (textMessages) {
      Optional<Charset> charset = ContentTypes.textCharset(event.contentType());
      if (charset.isPresent()) {
        String text = decode(event.payload(), charset.get());
        if (text != null) {
          return session.createTextMessage(text);
        }
        // Not valid in its own charset: a TextMessage would change the bytes, so send them as
        // they are.
      }
    }
    BytesMessage bytes = session.createBytesMessage();
    bytes.writeBytes(event.payload());
    return bytes;
  }

  private static String correlationId(OutboxEvent event) {
    for (Map.Entry<String, String> h : event.headers().entrySet()) {
      if (h.getKey().equalsIgnoreCase(JmsEvents.HEADER_CORRELATION_ID)) {
        return h.getValue();
      }
    }
    return event.id().toString();
  }

  /** Decodes strictly; null if the bytes are not valid in the charset. */
  private static String decode(byte[] bytes, Charset charset) {
    try {
      return charset
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
