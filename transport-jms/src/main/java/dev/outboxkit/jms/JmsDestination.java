package dev.outboxkit.jms;

import jakarta.jms.Destination;
import java.util.Objects;
import java.util.Optional;

/**
 * Where {@link JmsTransport} sends an event: a queue or a topic by name, or a {@link Destination}
 * object the application already has (looked up from JNDI, say). Immutable.
 *
 * <p>Names are handed to the provider's {@code Session.createQueue} or {@code createTopic}
 * unchanged; their syntax is the provider's (ActiveMQ accepts {@code orders.placed}, other
 * providers may want other forms).
 */
public final class JmsDestination {

  /** What kind of destination this is. */
  public enum Kind {
    /** A queue, by name: each message goes to one of the competing consumers. */
    QUEUE,
    /** A topic, by name: each message goes to every subscriber. */
    TOPIC,
    /** A {@link Destination} object supplied by the application. */
    OBJECT
  }

  private final Kind kind;
  private final String name;
  private final Destination destination;

  private JmsDestination(Kind kind, String name, Destination destination) {
    this.kind = kind;
    this.name = name;
    this.destination = destination;
  }

  /**
   * A queue by name.
   *
   * @param name the provider's queue name; not blank, no control characters
   * @return the destination
   * @throws IllegalArgumentException if the name is blank or contains control characters
   */
  public static JmsDestination queue(String name) {
    return new JmsDestination(Kind.QUEUE, checkName("queue", name), null);
  }

  /**
   * A topic by name.
   *
   * @param name the provider's topic name; not blank, no control characters
   * @return the destination
   * @throws IllegalArgumentException if the name is blank or contains control characters
   */
  public static JmsDestination topic(String name) {
    return new JmsDestination(Kind.TOPIC, checkName("topic", name), null);
  }

  /**
   * A destination object the application already has, e.g. from JNDI. It must belong to the same
   * provider as the transport's connection factory.
   *
   * @param destination the destination
   * @return the wrapper
   * @throws IllegalArgumentException if the destination is null
   */
  public static JmsDestination of(Destination destination) {
    if (destination == null) {
      throw new IllegalArgumentException("destination must not be null");
    }
    return new JmsDestination(Kind.OBJECT, null, destination);
  }

  /** {@return the kind of destination} */
  public Kind kind() {
    return kind;
  }

  /** {@return the queue or topic name; empty for {@link Kind#OBJECT}} */
  public Optional<String> name() {
    return Optional.ofNullable(name);
  }

  /** {@return the supplied destination object; empty for a queue or topic given by name} */
  public Optional<Destination> destination() {
    return Optional.ofNullable(destination);
  }

  /** Equal when of the same kind with the same name, or wrapping equal destination objects. */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof JmsDestination)) {
      return false;
    }
    JmsDestination d = (JmsDestination) o;
    return kind == d.kind
        && Objects.equals(name, d.name)
        && Objects.equals(destination, d.destination);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, name, destination);
  }

  /** {@code queue:NAME}, {@code topic:NAME} or {@code destination:} and the provider's text. */
  @Override
  public String toString() {
    switch (kind) {
      case QUEUE:
        return "queue:" + name;
      case TOPIC:
        return "topic:" + name;
      default:
        return "destination:" + destination;
    }
  }

  private static String checkName(String what, String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException(what + " name must not be blank");
    }
    for (int i = 0; i < name.length(); i++) {
      if (Character.isISOControl(name.charAt(i))) {
        throw new IllegalArgumentException(
            what + " name must not contain control characters (at index " + i + ")");
      }
    }
    return name;
  }
}
