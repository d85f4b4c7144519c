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
   * @param claimTime how long the claim transaction took; for a claim that shared its transaction
   *     with the previous batch's acknowledgement (while a backlog lasts), that transaction's time
   */
  default void batchClaimed(int size, Duration claimTime) {}

  /**
   * A batch was sent and its outcome recorded.
   *
   * @param size events in the batch
   * @param sendTime time spent in the transport
   * @param ackTime how long the acknowledgement transaction took, including the claim of the next
   *     batch when that shared the transaction
   */
  default void batchCompleted(int size, Duration sendTime, Duration ackTime) {}

  /**
   * An event was confirmed by the broker and marked published.
   *
   * @param event the event, as stored
   * @param attempt the attempt that succeeded, 1 on the first try; above 1 shows retries paid off
   * @param lag from the event's {@code occurredAt} to now, by the relay's clock
   */
  default void published(OutboxEvent event, int attempt, Duration lag) {}

  /**
   * An event failed and will be tried again.
   *
   * @param event the event, as stored
   * @param attempt the attempt that failed, 1 on the first try
   * @param reason the transport's reason, as recorded in {@code last_error}
   * @param delay how long until it becomes claimable again
   */
  default void retried(OutboxEvent event, int attempt, String reason, Duration delay) {}

  /**
   * A send of an event ended without an answer ({@code SendResult.uncertain}): it may have reached
   * the destination. Called besides {@link #retried} or {@link #dead}, which say what happens next;
   * the row counts it in {@code uncertain_sends}.
   *
   * @param event the event, as stored
   * @param attempt the attempt whose outcome is unknown
   * @param reason the transport's reason
   */
  default void uncertain(OutboxEvent event, int attempt, String reason) {}

  /**
   * An event was quarantined as DEAD; it waits for an operator to replay or discard it. Worth an
   * alert: in ordered mode the event's aggregate is held back until then.
   *
   * @param event the event, as stored
   * @param attempt the last attempt made
   * @param reason why, as recorded in {@code last_error}
   */
  default void dead(OutboxEvent event, int attempt, String reason) {}

  /**
   * An event passed its expiry before it could be sent and was marked EXPIRED.
   *
   * @param event the event, as stored
   */
  default void expired(OutboxEvent event) {}

  /**
   * The transport reported an outage; the relay pauses claiming.
   *
   * @param reason the transport's reason
   * @param pause how long until the next probe
   */
  default void transportUnavailable(String reason, Duration pause) {}

  /**
   * The transport answered again after an outage.
   *
   * @param outage how long it lasted, by the relay's clock
   */
  default void transportRecovered(Duration outage) {}

  /**
   * A round of the relay's own thread failed on the database (unreachable, a closed data source, a
   * missing table or column, a statement timeout); it retries after the pause. Nothing is lost:
   * claimed events stay leased and come back when the lease ends. Called on every failure of a
   * streak; {@link OutboxRelay#health()} says DOWN meanwhile.
   *
   * @param error what failed, with what to do where the relay knows (a missing table or column
   *     names the DDL or {@code ALTER TABLE} to run)
   * @param pause how long until the next try; it grows over failures in a row
   */
  default void databaseFailed(String error, Duration pause) {}

  /**
   * A round went through again after database failures.
   *
   * @param outage how long the database failed, by the relay's clock
   */
  default void databaseRecovered(Duration outage) {}

  /**
   * The transport broke its contract ({@link dev.outboxkit.Transport}): it answered a batch with
   * more or fewer results than messages, or it declared that it keeps order within a batch and then
   * delivered an event after an earlier one of its aggregate that it did not deliver. The relay
   * copes (it resends the events of a wrong-size answer one at a time; it sends in waves of one
   * event per aggregate from then on), logs it at ERROR, and tells this method: the transport has a
   * bug to report.
   *
   * @param problem what the transport did, naming the transport
   */
  default void transportMisbehaved(String problem) {}

  /**
   * Acknowledgements were refused because this relay's lease had expired and another relay took the
   * events over; they will be (or were) delivered again by the new owner. Frequent lease losses
   * mean the lease is too short for the send time: raise {@code leaseDuration}.
   *
   * @param events how many acknowledgements were refused
   */
  default void leaseLost(int events) {}

  /**
   * A transport call overran {@code sendTimeout} and ignored the interrupt that followed: its send
   * thread is left behind, still inside the transport. The relay runs at most {@value
   * OutboxRelay#MAX_SEND_THREADS} send threads, so such a transport costs a bounded number of
   * threads; alert on it, the transport needs a timeout of its own.
   *
   * @param stuck send threads abandoned and still stuck now, this one included
   */
  default void sendAbandoned(int stuck) {}

  /**
   * One destination of the transport was unavailable ({@code SendResult.unavailable(reason,
   * scope)}, e.g. one webhook endpoint of several): its events of this round are held back,
   * uncharged, while the relay goes on with the others.
   *
   * @param scope the destination, as the transport named it
   * @param events events of this round held back
   * @param pause the longest hold of them; it grows while the destination stays down
   */
  default void destinationUnavailable(String scope, int events, Duration pause) {}

  /**
   * A pass of the relay's scheduled retention ({@code OutboxRelay.Builder.retention}) ended, on the
   * relay's retention thread; also when it purged nothing or failed part-way (logged).
   *
   * @param events outbox rows deleted: finished ones past the retention, DEAD past the DEAD
   *     retention
   * @param inboxRows inbox rows deleted, 0 without an inbox retention
   * @param took how long the pass ran
   */
  default void purged(long events, long inboxRows, Duration took) {}
}
