package dev.outboxkit;

import java.util.Objects;

/**
 * One delivery attempt of a stored event, as handed to a {@link Transport}.
 *
 * <p>The same event may be handed over more than once (retries, a relay that died after sending but
 * before recording success); {@link #event()}'s id is identical every time.
 */
public final class OutboxMessage {
  private final OutboxEvent event;
  private final int attempt;

  private OutboxMessage(OutboxEvent event, int attempt) {
    this.event = Objects.requireNonNull(event, "event");
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be 1 or more, was " + attempt);
    }
    this.attempt = attempt;
  }

  /**
   * @param event the stored event
   * @param attempt which attempt this is, 1 for the first
   * @return the message
   */
  public static OutboxMessage of(OutboxEvent event, int attempt) {
    return new OutboxMessage(event, attempt);
  }

  /** {@return the stored event, exactly as appended} */
  public OutboxEvent event() {
    return event;
  }

  /**
   * {@return which delivery attempt this is: 1 on the first try} Transports may use it to log or to
   * escalate, never to change the event's identity.
   */
  public int attempt() {
    return attempt;
  }

  @Override
  public String toString() {
    return "OutboxMessage[" + event + ", attempt=" + attempt + "]";
  }
}
