package dev.outboxkit.jdbc;

import dev.outboxkit.OutboxException;
import dev.outboxkit.internal.LogText;
import java.util.UUID;

/**
 * An event arrived with a version past the next one its aggregate expects, and the consumer asked
 * {@link Inbox#accept} to fail on a gap ({@link Inbox.OnGap#FAIL}). Nothing of the event was
 * recorded; roll the transaction back and let the event be redelivered once the missing versions
 * have arrived (or accept it with {@link Inbox.OnGap#APPLY}).
 */
public class InboxGapException extends OutboxException {
  private static final long serialVersionUID = 1L;

  /** The consumer that met the gap. */
  private final String consumer;

  /** The aggregate's type. */
  private final String aggregateType;

  /** The aggregate's id. */
  private final String aggregateId;

  /** The event that carried the version. */
  private final UUID eventId;

  /** The version the aggregate expects next. */
  private final long expectedVersion;

  /** The version the event carried. */
  private final long receivedVersion;

  /**
   * @param consumer the consumer that met the gap
   * @param aggregateType the aggregate's type
   * @param aggregateId the aggregate's id
   * @param eventId the event that carried the version
   * @param expectedVersion the version the aggregate expects next (one past the last applied)
   * @param receivedVersion the version the event carried, above {@code expectedVersion}
   */
  public InboxGapException(
      String consumer,
      String aggregateType,
      String aggregateId,
      UUID eventId,
      long expectedVersion,
      long receivedVersion) {
    super(
        "consumer '"
            + LogText.escape(consumer)
            + "': aggregate "
            + LogText.escape(aggregateType)
            + "/"
            + LogText.escape(aggregateId)
            + " expects version "
            + expectedVersion
            + " next, but event "
            + eventId
            + " carries version "
            + receivedVersion
            + (receivedVersion - 1 == expectedVersion
                ? ": version " + expectedVersion + " is missing."
                : ": versions "
                    + expectedVersion
                    + " to "
                    + (receivedVersion - 1)
                    + " are missing.")
            + " Nothing was recorded: roll back and let the event be redelivered after them, or"
            + " accept it with OnGap.APPLY or OnGap.HOLD");
    this.consumer = consumer;
    this.aggregateType = aggregateType;
    this.aggregateId = aggregateId;
    this.eventId = eventId;
    this.expectedVersion = expectedVersion;
    this.receivedVersion = receivedVersion;
  }

  /** {@return the consumer that met the gap} */
  public String consumer() {
    return consumer;
  }

  /** {@return the aggregate's type} */
  public String aggregateType() {
    return aggregateType;
  }

  /** {@return the aggregate's id} */
  public String aggregateId() {
    return aggregateId;
  }

  /** {@return the event that carried the version} */
  public UUID eventId() {
    return eventId;
  }

  /** {@return the version the aggregate expects next: one past the last applied} */
  public long expectedVersion() {
    return expectedVersion;
  }

  /** {@return the version the event carried} */
  public long receivedVersion() {
    return receivedVersion;
  }
}
