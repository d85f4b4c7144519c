package dev.outboxkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Publishes events to a broker or endpoint. The relay calls it outside any database transaction.
 *
 * <p>Contract: return {@link SendResult#delivered()} only after the broker or endpoint confirmed
 * the message; the relay marks the event published on that word alone. An exception thrown by
 * {@link #send} counts as {@link SendResult#retry(String, java.time.Duration)}. A relay sends one
 * batch at a time, but batches it started with {@link #sendBatchAsync} may still be under way
 * meanwhile, and several relays may share one transport, so implementations must be thread-safe.
 */
public interface Transport extends AutoCloseable {

  /**
   * Sends one message and waits for the broker's confirmation.
   *
   * @param message the event and its attempt number
   * @return the outcome; never null
   */
  SendResult send(OutboxMessage message);

  /**
   * Sends a batch, in order, and returns one result per message, in the same order. The default
   * sends one at a time; override it to pipeline (send all, then await all confirmations).
   *
   * <p>When the calling thread is interrupted (the relay gave up on the batch after {@code
   * sendTimeout}, or is closing), stop starting sends and return promptly: {@link
   * SendResult#delivered()} for every message already confirmed, {@link
   * SendResult#unavailable(String)} for the rest, which the relay sends again later. The default
   * does so between messages. Whatever {@link #send} throws, an {@code Error} too, is that
   * message's retry.
   *
   * @param batch messages in claim order; messages of one aggregate appear in append order
   * @return one result per message, same order and size
   */
  default List<SendResult> sendBatch(List<OutboxMessage> batch) {
    List<SendResult> results = new ArrayList<>(batch.size());
    for (OutboxMessage message : batch) {
      if (Thread.currentThread().isInterrupted()) {
        results.add(SendResult.unavailable("not sent: the sending thread was interrupted"));
        continue;
      }
      SendResult result;
      try {
        result = Objects.requireNonNull(send(message), "Transport.send returned null");
      } catch (Throwable t) {
        // One message's failure, whatever it is (a class missing at run time, a stack overflow on
        // its payload): never the batch's.
        result = SendResult.retry(Failures.describe(t), null);
      }
      results.add(result);
    }
    return results;
  }

  /**
   * Starts sending a batch and returns without waiting for every confirmation: one future per
   * message, in the same order, each completed with that message's result as soon as it is known.
   * The relay then records the events confirmed so far while the others are still under way, so one
   * slow destination no longer holds back the rest of a batch (their events wait IN_FLIGHT, at most
   * {@code sendTimeout}, within a bounded number per relay).
   *
   * <p>The default calls {@link #sendBatch} and returns its results, already completed: a transport
   * that does not override this method is sent to exactly as before. Override it when your
   * transport learns results at different times (one request per event, several endpoints),
   * starting the sends on your own threads or an asynchronous client and returning promptly.
   *
   * <p>Contract, besides that of {@link #sendBatch}:
   *
   * <ul>
   *   <li>complete a future with {@link SendResult#delivered()} only after the broker or endpoint
   *       confirmed that message; never leave one uncompleted for longer than your own request
   *       timeout;
   *   <li>a future completed exceptionally, or with null, counts as that message's retry;
   *   <li>the relay cancels ({@link CompletableFuture#cancel(boolean)}) the futures it no longer
   *       waits for: its {@code sendTimeout} passed, or it is closing. Stop those sends if you can;
   *       the relay hands their events back uncharged and sends them again later;
   *   <li>the futures may be completed on any thread; the relay does no work on it;
   *   <li>a transport that declares {@link #keepsOrderWithinBatch()} keeps that promise here too.
   * </ul>
   *
   * @param batch messages in claim order; messages of one aggregate appear in append order
   * @return one future per message, same order and size
   */
  default List<CompletableFuture<SendResult>> sendBatchAsync(List<OutboxMessage> batch) {
    List<SendResult> results = sendBatch(batch);
    List<CompletableFuture<SendResult>> futures = new ArrayList<>(results.size());
    for (SendResult r : results) {
      futures.add(CompletableFuture.completedFuture(r));
    }
    return futures;
  }

  /**
   * Whether this transport keeps per-aggregate order within one batch. A transport that returns
   * true promises, for the messages of one aggregate in one {@link #sendBatch} call:
   *
   * <ul>
   *   <li>they reach the broker or endpoint in batch order;
   *   <li>once one of them is not delivered, none after it is (it answers anything but {@link
   *       SendResult#delivered()} for them, and the relay hands them back uncharged).
   * </ul>
   *
   * <p>The relay in ordered mode then sends an aggregate's run of events in one batch. For a
   * transport that makes no such promise (the default) it sends a run in waves: one event per
   * aggregate per {@code sendBatch} call, the next wave only with the aggregates whose previous
   * event was delivered. Either way the relay, not the transport, guarantees that no event is
   * delivered before every earlier event of its aggregate was.
   *
   * @return true if the promise above holds; the default is false
   */
  default boolean keepsOrderWithinBatch() {
    return false;
  }

  /**
   * Whether this transport tells outages apart from event failures itself: it answers {@link
   * SendResult#unavailable(String)} (or the scoped variant) when the broker or an endpoint is down,
   * and {@link SendResult#retry(String, java.time.Duration)} only for a failure of the event.
   *
   * <p>For a transport that does not (the default), the relay treats a batch of two or more whose
   * every result is a retry with one and the same reason and no retry delay as an outage, so that a
   * broker that is down does not burn attempt budgets. For a transport that does, every result
   * counts as given.
   *
   * @return true if the transport classifies its failures; the default is false
   */
  default boolean classifiesFailures() {
    return false;
  }

  /**
   * Whether this transport can look an event up at its destination ({@link #confirm}). The relay
   * then asks it before sending again an event whose earlier send was uncertain ({@link
   * OutboxMessage#uncertainSends()} above 0), so an event that did arrive is not delivered twice.
   *
   * @return true if {@link #confirm} answers; the default is false (every such event is sent again)
   */
  default boolean confirmsDelivery() {
    return false;
  }

  /**
   * Asks the destination whether it already has this message's event (by its id), for a transport
   * whose {@link #confirmsDelivery()} is true. The relay calls it on a send thread, within the
   * batch's send timeout, only for messages with an earlier uncertain send; an event confirmed here
   * is recorded as published without being sent again.
   *
   * @param message the event the relay is about to send again
   * @return true only if the destination confirms it has the event; false to send it
   * @throws RuntimeException when the destination cannot tell: the event is sent again (at least
   *     once wins over at most once)
   */
  default boolean confirm(OutboxMessage message) {
    return false;
  }

  /** Releases the transport's resources. The default does nothing. */
  @Override
  default void close() {}
}
