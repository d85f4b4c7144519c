package dev.outboxkit.faults;

import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Passes batches on to a transport and remembers each call: when it was handed over and returned,
 * how many events it carried and how many came back delivered.
 */
final class CountingTransport implements Transport {
  private final Transport delegate;
  private final ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();

  /** One {@code sendBatch} call. */
  static final class Call {
    final long startNanos;
    final int size;
    volatile long endNanos = Long.MAX_VALUE;
    volatile int delivered;

    Call(long startNanos, int size) {
      this.startNanos = startNanos;
      this.size = size;
    }

    boolean overlaps(long fromNanos, long toNanos) {
      return startNanos - toNanos < 0 && endNanos - fromNanos >= 0;
    }
  }

  CountingTransport(Transport delegate) {
    this.delegate = delegate;
  }

  @Override
  public SendResult send(OutboxMessage message) {
    return sendBatch(List.of(message)).get(0);
  }

  @Override
  public List<SendResult> sendBatch(List<OutboxMessage> batch) {
    Call call = new Call(System.nanoTime(), batch.size());
    calls.add(call);
    try {
      List<SendResult> results = delegate.sendBatch(batch);
      call.delivered = (int) results.stream().filter(SendResult::isDelivered).count();
      return results;
    } finally {
      call.endNanos = System.nanoTime();
    }
  }

  /** Every call so far. */
  List<Call> calls() {
    return List.copyOf(calls);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
