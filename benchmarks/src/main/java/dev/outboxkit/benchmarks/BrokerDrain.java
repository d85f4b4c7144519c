package dev.outboxkit.benchmarks;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.Transport;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.RelayListener;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * One measured round of scenario 3: the relay draining loaded events through a transport, or the
 * raw client sending the same number of messages, each to a fresh destination and each checked
 * event by event count before its figure counts.
 */
final class BrokerDrain {
  private final DataSource ds;
  private final DrainBenchmark loader;
  private final int batchSize;
  private final int aggregates;
  private final OutboxAdmin admin;

  BrokerDrain(DataSource ds, DrainBenchmark loader, int batchSize, int aggregates) {
    this.ds = ds;
    this.loader = loader;
    this.batchSize = batchSize;
    this.aggregates = aggregates;
    this.admin = OutboxAdmin.create(ds);
  }

  /**
   * Events per second one unordered relay drains {@code events} loaded rows to the target.
   *
   * @param times receives the relay's batch timings
   */
  double rate(BrokerTarget target, int events, RelayListener times) throws Exception {
    return rate(target, events, times, false);
  }

  /**
   * Events per second one relay, ordered or not, drains {@code events} loaded rows to the target.
   *
   * @param times receives the relay's batch timings
   */
  double rate(BrokerTarget target, int events, RelayListener times, boolean ordered)
      throws Exception {
    loader.load(events, aggregates);
    String destination = target.newDestination();
    int drained;
    double seconds;
    try (Transport transport = target.transport(destination);
        OutboxRelay relay =
            OutboxRelay.builder(ds, transport)
                .name("bench")
                .batchSize(batchSize)
                .ordered(ordered)
                .listener(times)
                .build()) {
      long start = System.nanoTime();
      long giveUp = start + TimeUnit.SECONDS.toNanos(60);
      drained = relay.drain();
      // An event the transport answered "retry" (say, a connection closed under a request) is
      // due again after its backoff: keep draining, on the clock, until every event is
      // PUBLISHED. A retry costs the relay time, so the figure includes it.
      while (admin.count(EventStatus.PUBLISHED) < events && System.nanoTime() < giveUp) {
        Thread.sleep(20);
        drained += relay.drain();
      }
      seconds = (System.nanoTime() - start) / 1e9;
    }
    long published = admin.count(EventStatus.PUBLISHED);
    long arrived = target.arrived(destination);
    if (published != events || arrived < events) {
      throw new IllegalStateException(
          String.format(
              "%s relay round broken: handled %d, PUBLISHED %d, arrived %d, expected %d",
              target.name(), drained, published, arrived, events));
    }
    return events / seconds;
  }

  /**
   * Events per second the target's transport alone sends and gets confirmed, in batches of the
   * relay's size, with no database: what the relay's transport costs without the relay.
   */
  double transportRate(BrokerTarget target, List<OutboxEvent> events) throws Exception {
    List<OutboxMessage> messages = new ArrayList<>(events.size());
    for (OutboxEvent e : events) {
      messages.add(OutboxMessage.of(e, 1));
    }
    String destination = target.newDestination();
    long failed = 0;
    double seconds;
    try (Transport transport = target.transport(destination)) {
      long start = System.nanoTime();
      for (int from = 0; from < messages.size(); from += batchSize) {
        List<OutboxMessage> batch =
            messages.subList(from, Math.min(messages.size(), from + batchSize));
        failed += transport.sendBatch(batch).stream().filter(r -> !r.isDelivered()).count();
      }
      seconds = (System.nanoTime() - start) / 1e9;
    }
    long arrived = target.arrived(destination);
    if (failed > 0 || arrived < events.size()) {
      throw new IllegalStateException(
          String.format(
              "%s transport round broken: %d not delivered, arrived %d, expected %d",
              target.name(), failed, arrived, events.size()));
    }
    return events.size() / seconds;
  }

  /** Events per second the target's raw client sends and gets confirmed. */
  double rawRate(BrokerTarget target, List<OutboxEvent> events) throws Exception {
    String destination = target.newDestination();
    double seconds = target.sendRaw(destination, events, batchSize);
    long arrived = target.arrived(destination);
    if (arrived < events.size()) {
      throw new IllegalStateException(
          String.format(
              "%s raw round broken: arrived %d, expected %d",
              target.name(), arrived, events.size()));
    }
    return events.size() / seconds;
  }
}
