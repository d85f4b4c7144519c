package dev.outboxkit.jdbc;

import dev.outboxkit.OutboxEvent;
import java.time.Duration;

/**
 * Hears what a relay does, for metrics and alerts. Every method has an empty default, so an
 * implementation overrides only what it needs. Called on the relay's thread after the outcome was
 * committed to the table; keep implementations fast and non-blocking. Exceptions they throw are
 * logged and otherwise ignored.
 */
public interface RelayListener {

  /** A listener that does nothing. */
  RelayListener NONE = new RelayListener() {};

  /**
   * A batch was claimed.
   *
   * @param size events claimed
   * @param claimTime how long the claim transaction took
   */
  default void batchClaimed(int size, Duration claimTime) {}

  /**
   * A batch was sent and its outcome recorded.
   *
   * @param size events in the batch
   * @param sendTime time spent in the transport
   * @param ackTime how long the acknowledgement transaction took
   */
  default void batchCompleted(int size, Duration sendTime, Duration ackTime) {}

  /**
   * An event was confirmed by the broker and marked published.
   *
   * @param lag from the event's {@code occurredAt} to now, by the relay's clock
   */
  default void published(OutboxEvent event, int attempt, Duration lag) {}

  /**
   * An event failed and will be tried again.
   *
   * @param delay how long until it becomes claimable again
   */
  default void retried(OutboxEvent event, int attempt, String reason, Duration delay) {}

  /** An event was quarantined as DEAD; it waits for an operator to replay or discard it. */
  default void dead(OutboxEvent event, int attempt, String reason) {}

  /** An event passed its expiry before it could be sent and was marked EXPIRED. */
  default void expired(OutboxEvent event) {}

  /**
   * The transport reported an outage; the relay pauses claiming.
   *
   * @param pause how long until the next probe
   */
  default void transportUnavailable(String reason, Duration pause) {}

  /** The transport answered again after an outage. */
  default void transportRecovered(Duration outage) {}

  /**
   * Acknowledgements were refused because this relay's lease had expired and another relay took the
   * events over; they will be (or were) delivered again by the new owner.
   */
  default void leaseLost(int events) {}
}
