package dev.outboxkit.jms;

import dev.outboxkit.internal.WireText;
import dev.outboxkit.jms.internal.ContentTypes;
import dev.outboxkit.jms.internal.PropertyNames;
import jakarta.jms.BytesMessage;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageEOFException;
import jakarta.jms.TextMessage;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;

/**
 * The wire format of messages sent by {@link JmsTransport}: property names, the header-name
 * mapping, and readers for the consumer side.
 *
 * <h2>Message</h2>
 *
 * <p>A {@code BytesMessage} holding the payload bytes; or, when the transport was built with {@link
 * JmsTransport.Builder#textMessages(boolean) textMessages(true)} and the content type is textual, a
 * {@code TextMessage} holding the payload decoded in the content type's charset (UTF-8 unless
 * given). {@link #payload(Message)} reads either back as the original bytes. Delivery mode {@code
 * PERSISTENT}, default priority, and a time-to-live only when the event has an {@code expiresAt}.
 *
 * <table>
 *   <caption>JMS headers and properties set by the transport</caption>
 *   <tr><th>header or property</th><th>value</th></tr>
 *   <tr><td>{@code JMSCorrelationID}</td><td>the event's {@value #HEADER_CORRELATION_ID} header
 *       (name matched ignoring case) if it has one, else the event id</td></tr>
 *   <tr><td>{@code JMSXGroupID}</td><td>aggregate id: brokers that support message groups hand
 *       all messages of one aggregate to one consumer at a time, so competing consumers keep each
 *       aggregate's order</td></tr>
 *   <tr><td>{@value #EVENT_ID}</td><td>event id, canonical UUID text; the same in every delivery
 *       attempt, so consumers can deduplicate on it</td></tr>
 *   <tr><td>{@value #EVENT_TYPE}</td><td>event type, e.g. {@code OrderPlaced}</td></tr>
 *   <tr><td>{@value #AGGREGATE_TYPE}</td><td>aggregate type, e.g. {@code Order}</td></tr>
 *   <tr><td>{@value #AGGREGATE_ID}</td><td>aggregate id</td></tr>
 *   <tr><td>{@value #SCHEMA_VERSION}</td><td>payload schema version, an {@code int}
 *       property</td></tr>
 *   <tr><td>{@value #CONTENT_TYPE}</td><td>payload media type, e.g.
 *       {@code application/json}</td></tr>
 *   <tr><td>{@value #OCCURRED_AT}</td><td>when the event happened, ISO-8601 instant
 *       ({@code 2025-01-31T12:13:01.123456Z})</td></tr>
 *   <tr><td>{@value #TENANT}</td><td>tenant, only when the event has one</td></tr>
 *   <tr><td>{@value #AGGREGATE_VERSION}</td><td>the aggregate's version after this event, a
 *       {@code long} property of 1 or more; only when the event has one</td></tr>
 * </table>
 *
 * <p>Every property except {@value #SCHEMA_VERSION} and {@value #AGGREGATE_VERSION} is a {@code
 * String}, so message selectors such as {@code outbox_event_type = 'OrderPlaced'} work (and {@code
 * outbox_aggregate_version > 3} on the numeric one).
 *
 * <h2>User headers</h2>
 *
 * <p>The event's own headers follow as {@code String} properties. JMS property names must be Java
 * identifiers, must not be a selector keyword ({@code NULL}, {@code TRUE}, {@code FALSE}, {@code
 * NOT}, {@code AND}, {@code OR}, {@code BETWEEN}, {@code LIKE}, {@code IN}, {@code IS}, {@code
 * ESCAPE}) and must not start with {@code JMS}; header names are HTTP tokens. So names are mapped
 * ({@link #propertyName(String)}), reversibly ({@link #headerName(String)}):
 *
 * <ul>
 *   <li>ASCII letters and digits stay as they are;
 *   <li>{@code -} becomes {@code _} ({@code correlation-id} → {@code correlation_id});
 *   <li>every other character, including {@code _} and {@code $} themselves and a leading digit,
 *       becomes {@code $} followed by its two upper-case hex digits ({@code trace.id} → {@code
 *       trace$2Eid}, {@code x_y} → {@code x$5Fy}, {@code 1st} → {@code $31st});
 *   <li>if the result is a selector keyword or starts with {@code JMS} (ignoring case), its first
 *       letter is escaped the same way ({@code in} → {@code $69n}, {@code JMSType} → {@code
 *       $4AMSType}).
 * </ul>
 *
 * <p>A header whose mapped name is one of the transport's own property names (for instance {@code
 * outbox-event-id}, which maps to {@value #EVENT_ID}) would be ambiguous for consumers, so the
 * transport rejects such an event with a reason naming the header.
 */
public final class JmsEvents {

  /** Property carrying the event id: {@value}. */
  public static final String EVENT_ID = "outbox_event_id";

  /** Property carrying the event type: {@value}. */
  public static final String EVENT_TYPE = "outbox_event_type";

  /** Property carrying the aggregate type: {@value}. */
  public static final String AGGREGATE_TYPE = "outbox_aggregate_type";

  /** Property carrying the aggregate id: {@value}. Also in {@code JMSXGroupID}. */
  public static final String AGGREGATE_ID = "outbox_aggregate_id";

  /** {@code int} property carrying the payload schema version: {@value}. */
  public static final String SCHEMA_VERSION = "outbox_schema_version";

  /** Property carrying the payload's media type: {@value}. */
  public static final String CONTENT_TYPE = "outbox_content_type";

  /** Property carrying when the event happened, as an ISO-8601 instant: {@value}. */
  public static final String OCCURRED_AT = "outbox_occurred_at";

  /** Property carrying the tenant, present only for events that have one: {@value}. */
  public static final String TENANT = "outbox_tenant";

  /**
   * {@code long} property carrying the aggregate's version after this event, present only for
   * events that have one ({@link dev.outboxkit.OutboxEvent#aggregateVersion()}): {@value}. A
   * consumer hands it to its inbox's ordering guard.
   */
  public static final String AGGREGATE_VERSION = "outbox_aggregate_version";

  /**
   * Event header whose value becomes {@code JMSCorrelationID} instead of the event id: {@value}
   * (matched ignoring case). It is also delivered as the property {@code correlation_id}.
   */
  public static final String HEADER_CORRELATION_ID = "correlation-id";

  /** The property names the transport sets itself; user headers must not map to them. */
  public static final Set<String> RESERVED_PROPERTIES =
      Set.of(
          EVENT_ID,
          EVENT_TYPE,
          AGGREGATE_TYPE,
          AGGREGATE_ID,
          SCHEMA_VERSION,
          CONTENT_TYPE,
          OCCURRED_AT,
          TENANT,
          AGGREGATE_VERSION);

  private JmsEvents() {}

  /**
   * Reads the event id.
   *
   * @param message a consumed message
   * @return the event id, or empty if the message has no {@value #EVENT_ID} property
   * @throws IllegalArgumentException if the property is present but not a UUID; the message names
   *     the JMS message id
   * @throws JMSException if the provider cannot read the property
   */
  public static Optional<UUID> eventId(Message message) throws JMSException {
    return WireText.uuid(stripped(message, EVENT_ID), origin(message, EVENT_ID));
  }

  /**
   * Reads the event type.
   *
   * @param message a consumed message
   * @return the event type, or empty if the property is absent
   * @throws JMSException if the provider cannot read the property
   */
  public static Optional<String> eventType(Message message) throws JMSException {
    return property(message, EVENT_TYPE);
  }

  /**
   * Reads the aggregate type.
   *
   * @param message a consumed message
   * @return the aggregate type, or empty if the property is absent
   * @throws JMSException if the provider cannot read the property
   */
  public static Optional<String> aggregateType(Message message) throws JMSException {
    return property(message, AGGREGATE_TYPE);
  }

  /**
   * Reads the aggregate id.
   *
   * @param message a consumed message
   * @return the aggregate id, or empty if the property is absent
   * @throws JMSException if the provider cannot read the property
   */
  public static Optional<String> aggregateId(Message message) throws JMSException {
    return property(message, AGGREGATE_ID);
  }

  /**
   * Reads the payload's media type.
   *
   * @param message a consumed message
   * @return the content type, or empty if the property is absent
   * @throws JMSException if the provider cannot read the property
   */
  public static Optional<String> contentType(Message message) throws JMSException {
    return property(message, CONTENT_TYPE);
  }

  /**
   * Reads the tenant.
   *
   * @param message a consumed message
   * @return the tenant, or empty if the event had none
   * @throws JMSException if the provider cannot read the property
   */
  public static Optional<String> tenant(Message message) throws JMSException {
    return property(message, TENANT);
  }

  /**
   * Reads the payload schema version.
   *
   * @param message a consumed message
   * @return the schema version, or empty if the property is absent
   * @throws IllegalArgumentException if the property is present but not an integer
   * @throws JMSException if the provider cannot read the property
   */
  public static OptionalInt schemaVersion(Message message) throws JMSException {
    Objects.requireNonNull(message, "message");
    Object value = message.getObjectProperty(SCHEMA_VERSION);
    if (value == null) {
      return OptionalInt.empty();
    }
    if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
      return OptionalInt.of(((Number) value).intValue());
    }
    return WireText.integer(Optional.of(value.toString().strip()), origin(message, SCHEMA_VERSION));
  }

  /**
   * Reads the aggregate's version after this event, as {@link
   * dev.outboxkit.OutboxEvent#aggregateVersion()} had it when appended. Accepts the {@code long}
   * property this transport sets, a smaller integer type, or decimal text (another producer's).
   *
   * @param message a consumed message
   * @return the version, or empty if the message has no {@value #AGGREGATE_VERSION} property (the
   *     event was appended without one)
   * @throws IllegalArgumentException if the property is present but not a whole number of 1 or
   *     more; the message names the property and the JMS message id
   * @throws JMSException if the provider cannot read the property
   */
  public static OptionalLong aggregateVersion(Message message) throws JMSException {
    Objects.requireNonNull(message, "message");
    Object value = message.getObjectProperty(AGGREGATE_VERSION);
    // A long (this transport's), a smaller integer type or text all read as their decimal text.
    return WireText.version(
        Optional.ofNullable(value).map(v -> v.toString().strip()),
        origin(message, AGGREGATE_VERSION));
  }

  /**
   * Reads when the event happened.
   *
   * @param message a consumed message
   * @return the instant, or empty if the property is absent
   * @throws IllegalArgumentException if the property is present but not an ISO-8601 instant
   * @throws JMSException if the provider cannot read the property
   */
  public static Optional<Instant> occurredAt(Message message) throws JMSException {
    return WireText.instant(stripped(message, OCCURRED_AT), origin(message, OCCURRED_AT));
  }

  /**
   * Reads one of the event's own headers by its original name.
   *
   * @param message a consumed message
   * @param headerName the header name as on the event, e.g. {@code correlation-id}
   * @return the value, or empty if absent
   * @throws IllegalArgumentException if the name is not an HTTP token
   * @throws JMSException if the provider cannot read the property
   */
  public static Optional<String> header(Message message, String headerName) throws JMSException {
    Objects.requireNonNull(headerName, "headerName");
    return property(message, PropertyNames.encode(headerName));
  }

  /**
   * Reads the event's own headers: every {@code String} property whose name decodes to a header
   * name, except the transport's reserved ones and {@code JMS*} properties.
   *
   * @param message a consumed message
   * @return header name to value, unmodifiable; order as the provider lists the properties
   * @throws JMSException if the provider cannot read the properties
   */
  public static Map<String, String> headers(Message message) throws JMSException {
    Objects.requireNonNull(message, "message");
    Map<String, String> headers = new LinkedHashMap<>();
    Enumeration<?> names = message.getPropertyNames();
    while (names.hasMoreElements()) {
      String property = String.valueOf(names.nextElement());
      if (RESERVED_PROPERTIES.contains(property) || property.startsWith("JMS")) {
        continue;
      }
      Optional<String> header = PropertyNames.decode(property);
      Object value = message.getObjectProperty(property);
      if (header.isPresent() && value instanceof String) {
        headers.put(header.get(), (String) value);
      }
    }
    return Collections.unmodifiableMap(headers);
  }

  /**
   * Reads the payload as the bytes that were appended: a {@code BytesMessage}'s whole body, or a
   * {@code TextMessage}'s text encoded in the charset of its {@value #CONTENT_TYPE} (UTF-8 unless
   * given). A {@code BytesMessage} is read from the start, whatever was read of it before, and
   * rewound ({@code reset()}) afterwards, so it can be read again. JMS 1.1 calls only.
   *
   * @param message a consumed {@code BytesMessage} or {@code TextMessage}
   * @return the payload bytes
   * @throws IllegalArgumentException if the message is of another type, or its body does not fit in
   *     a byte array
   * @throws JMSException if the provider cannot read the body
   */
  public static byte[] payload(Message message) throws JMSException {
    Objects.requireNonNull(message, "message");
    if (message instanceof BytesMessage) {
      return body((BytesMessage) message);
    }
    if (message instanceof TextMessage) {
      String text = ((TextMessage) message).getText();
      if (text == null) {
        return new byte[0];
      }
      Charset charset =
          contentType(message).flatMap(ContentTypes::textCharset).orElse(StandardCharsets.UTF_8);
      return text.getBytes(charset);
    }
    throw new IllegalArgumentException(
        "message "
            + message.getJMSMessageID()
            + " is neither a BytesMessage nor a TextMessage: "
            + message.getClass().getSimpleName());
  }

  /**
   * The JMS property name a header is delivered under, by the mapping in the class comment.
   *
   * @param headerName an HTTP token, e.g. {@code trace.id}
   * @return the property name, e.g. {@code trace$2Eid}
   * @throws IllegalArgumentException if the name is empty or not printable ASCII
   */
  public static String propertyName(String headerName) {
    return PropertyNames.encode(headerName);
  }

  /**
   * The header name a property name came from: the inverse of {@link #propertyName(String)}.
   *
   * @param propertyName a JMS property name
   * @return the header name, or empty if no header maps to this property name
   */
  public static Optional<String> headerName(String propertyName) {
    return PropertyNames.decode(propertyName);
  }

  /**
   * The whole body, with JMS 1.1 calls only ({@code Message.getBody} is JMS 2.0): rewound first, so
   * a body the consumer already read in part comes back whole, and again after, so the consumer can
   * still read it.
   */
  private static byte[] body(BytesMessage message) throws JMSException {
    message.reset();
    long length = message.getBodyLength();
    if (length > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "message " + message.getJMSMessageID() + " has a body too large for a byte array");
    }
    byte[] body = new byte[(int) length];
    // readBytes fills the array from index 0 and says how much it read; a provider may hand the
    // body out in pieces.
    int filled = Math.max(0, message.readBytes(body));
    while (filled < body.length) {
      byte[] rest = new byte[body.length - filled];
      int n = message.readBytes(rest);
      if (n <= 0) {
        throw new MessageEOFException(
            "message "
                + message.getJMSMessageID()
                + " ended after "
                + filled
                + " of its "
                + body.length
                + " body bytes");
      }
      System.arraycopy(rest, 0, body, filled, n);
      filled += n;
    }
    message.reset();
    return body;
  }

  private static Optional<String> property(Message message, String name) throws JMSException {
    Objects.requireNonNull(message, "message");
    Object value = message.getObjectProperty(name);
    return value == null ? Optional.empty() : Optional.of(value.toString());
  }

  // Lenient with blanks around a value, which a producer other than this transport may leave.
  private static Optional<String> stripped(Message message, String name) throws JMSException {
    return property(message, name).map(String::strip);
  }

  // The wording of WireText's errors, which has no reader for a long.

  private static WireText.Origin<JMSException> origin(Message message, String property) {
    return () -> "property '" + property + "' of message " + message.getJMSMessageID();
  }
}
