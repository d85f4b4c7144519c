package dev.outboxkit.testing;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A transport that keeps every message it is handed, in memory, and answers with a configurable
 * function ({@link SendResult#delivered()} unless told otherwise). Thread-safe; meant for tests.
 *
 * <pre>{@code
 * RecordingTransport transport = new RecordingTransport();
 * // ... run the relay ...
 * assertThat(transport.deliveredEvents()).extracting(OutboxEvent::eventType).contains("OrderPlaced");
 * }</pre>
 */
public final class RecordingTransport implements Transport {
  private final List<Attempt> attempts = new ArrayList<>();
  private volatile Function<OutboxMessage, SendResult> responder = m -> SendResult.delivered();
  private volatile boolean closed;

  /** A transport that delivers everything until told otherwise by {@link #respondWith}. */
  public RecordingTransport() {}

  /** One message handed to the transport, and what it answered. */
  public static final class Attempt {
    private final OutboxMessage message;
    private final SendResult result;

    Attempt(OutboxMessage message, SendResult result) {
      this.message = message;
      this.result = result;
    }

    /** {@return the message as handed over, including its attempt number} */
    public OutboxMessage message() {
      return message;
    }

    /** {@return what the transport answered} */
    public SendResult result() {
      return result;
    }
  }

  /**
   * Answers every later message with this function instead of delivering it.
   *
   * @param responder decides the result per message; an exception it throws propagates like a
   *     failing broker client's would
   * @return this transport
   */
  public RecordingTransport respondWith(Function<OutboxMessage, SendResult> responder) {
    this.responder = Objects.requireNonNull(responder, "responder");
    return this;
  }

  @Override
  public SendResult send(OutboxMessage message) {
    if (closed) {
      return SendResult.unavailable("recording transport is closed");
    }
    SendResult result = responder.apply(message);
    synchronized (attempts) {
      attempts.add(new Attempt(message, result));
      attempts.notifyAll();
    }
    return result;
  }

  /**
   * {@return every message handed over so far, with its result, in the order they arrived} A
   * snapshot: later sends do not change the returned list.
   */
  public List<Attempt> attempts() {
    synchronized (attempts) {
      return List.copyOf(attempts);
    }
  }

  /**
   * {@return the events whose send answered delivered, in delivery order} Duplicates appear twice,
   * so a test can see the at-least-once redeliveries it provoked.
   */
  public List<OutboxEvent> deliveredEvents() {
    List<OutboxEvent> delivered = new ArrayList<>();
    for (Attempt a : attempts()) {
      if (a.result.isDelivered()) {
        delivered.add(a.message.event());
      }
    }
    return delivered;
  }

  /**
   * Waits until at least {@code count} deliveries were recorded, so a test waits on a condition
   * instead of sleeping.
   *
   * @param count how many delivered results to wait for, duplicates included
   * @param timeout how long to wait at most
   * @return true if they were, false if the timeout passed first
   * @throws InterruptedException if the waiting thread is interrupted
   */
  public boolean awaitDelivered(int count, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (attempts) {
      while (deliveredCount() < count) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        attempts.wait(Math.max(1, left / 1_000_000));
      }
      return true;
    }
  }

  private int deliveredCount() {
    int n = 0;
    for (Attempt a : attempts) {
      if (a.result.isDelivered()) {
        n++;
      }
    }
    return n;
  }

  /** Answers every later message unavailable, as a closed transport does; records nothing more. */
  @Override
  public void close() {
    closed = true;
  }

  /** Forgets everything recorded so far. */
  public void clear() {
    synchronized (attempts) {
      attempts.clear();
    }
  }
}
