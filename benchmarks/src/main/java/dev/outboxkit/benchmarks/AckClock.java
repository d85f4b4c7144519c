package dev.outboxkit.benchmarks;

import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A transport that confirms every event at once and records when (epoch micros, first delivery
 * only), so commit-to-ack latency measures the relay alone, not a broker.
 */
final class AckClock implements Transport {
  private final Map<UUID, Long> acks = new ConcurrentHashMap<>();

  @Override
  public SendResult send(OutboxMessage message) {
    acks.putIfAbsent(message.event().id(), PacedWriter.micros(Instant.now()));
    return SendResult.delivered();
  }

  @Override
  public List<SendResult> sendBatch(List<OutboxMessage> batch) {
    long now = PacedWriter.micros(Instant.now());
    List<SendResult> results = new ArrayList<>(batch.size());
    for (OutboxMessage m : batch) {
      acks.putIfAbsent(m.event().id(), now);
      results.add(SendResult.delivered());
    }
    return results;
  }

  /** Ack instant per event id. */
  Map<UUID, Long> acks() {
    return acks;
  }

  int count() {
    return acks.size();
  }

  @Override
  public void close() {}
}
