package dev.outboxkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Publishes events to a broker or endpoint. The relay calls it outside any database transaction.
 *
 * <p>Contract: return {@link SendResult#delivered()} only after the broker or endpoint confirmed
 * the message; the relay marks the event published on that word alone. An exception thrown by
 * {@link #send} counts as {@link SendResult#retry(String, java.time.Duration)}. Implementations are
 * called by one relay thread at a time per relay, but several relays may share one transport, so
 * they must be thread-safe.
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

  /** Releases the transport's resources. The default does nothing. */
  @Override
  default void close() {}
}
