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
  private final int uncertainSends;

  private OutboxMessage(OutboxEvent event, int attempt, int uncertainSends) {
    this.event = Objects.requireNonNull(event, "event");
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be 1 or more, was " + attempt);
    }
    if (uncertainSends < 0) {
      throw new IllegalArgumentException("uncertainSends must be 0 or more, was " + uncertainSends);
    }
    this.attempt = attempt;
    this.uncertainSends = uncertainSends;
  }

  /**
   * @param event the stored event
   * @param attempt which attempt this is, 1 for the first
   * @return the message, with no uncertain send before it
   */
  public static OutboxMessage of(OutboxEvent event, int attempt) {
    return new OutboxMessage(event, attempt, 0);
  }

  /**
   * @param event the stored event
   * @param attempt which attempt this is, 1 for the first
   * @param uncertainSends how many earlier sends of the event had an unknown outcome
   * @return the message
   */
  public static OutboxMessage of(OutboxEvent event, int attempt, int uncertainSends) {
    return new OutboxMessage(event, attempt, uncertainSends);
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

  /**
   * {@return how many earlier sends of this event ended without an answer ({@link
   * SendResult#uncertain}), so may have reached the destination} 0 for most messages; a transport
   * that can look events up is asked first ({@link Transport#confirm}).
   */
  public int uncertainSends() {
    return uncertainSends;
  }

  @Override
  public String toString() {
    return "OutboxMessage["
        + event
        + ", attempt="
        + attempt
        + (uncertainSends == 0 ? "" : ", uncertainSends=" + uncertainSends)
        + "]";
  }
}
