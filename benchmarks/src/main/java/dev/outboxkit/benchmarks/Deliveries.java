package dev.outboxkit.benchmarks;

import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A null transport (confirms every event at once) that counts deliveries per event id, so a run can
 * prove it published each event exactly once, and checks that each aggregate's events arrive in id
 * order (the loaders' ids grow with the append order). Thread-safe: several relays may share one.
 */
final class Deliveries implements Transport {
  private final Set<UUID> ids = ConcurrentHashMap.newKeySet();
  private final AtomicLong total = new AtomicLong();
  private final Map<String, UUID> lastOfAggregate = new ConcurrentHashMap<>();
  private final AtomicLong outOfOrder = new AtomicLong();

  @Override
  public SendResult send(OutboxMessage message) {
    total.incrementAndGet();
    UUID id = message.event().id();
    ids.add(id);
    UUID previous = lastOfAggregate.put(message.event().aggregateId(), id);
    if (previous != null && previous.compareTo(id) > 0) {
      outOfOrder.incrementAndGet();
    }
    return SendResult.delivered();
  }

  /** True: it delivers every event of a batch, in batch order. */
  @Override
  public boolean keepsOrderWithinBatch() {
    return true;
  }

  /** Deliveries so far, duplicates included. */
  long total() {
    return total.get();
  }

  /** Deliveries of an id already delivered before. */
  long duplicates() {
    return total.get() - ids.size();
  }

  /** Deliveries that came after a later event of the same aggregate. */
  long outOfOrder() {
    return outOfOrder.get();
  }

  /**
   * Throws unless exactly {@code expected} distinct events were delivered, each once.
   *
   * @param what the run, for the message
   */
  void check(long expected, String what) {
    if (ids.size() != expected || duplicates() != 0) {
      throw new IllegalStateException(
          what
              + ": "
              + ids.size()
              + " distinct events delivered ("
              + duplicates()
              + " duplicates), expected "
              + expected);
    }
  }
}
