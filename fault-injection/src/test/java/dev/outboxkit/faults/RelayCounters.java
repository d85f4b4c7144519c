package dev.outboxkit.faults;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.RelayListener;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** What in-process relays report, summed over all relays that share it. */
final class RelayCounters implements RelayListener {
  final AtomicInteger batches = new AtomicInteger();
  final AtomicInteger unavailable = new AtomicInteger();
  final AtomicInteger recovered = new AtomicInteger();
  final AtomicInteger retried = new AtomicInteger();
  final AtomicInteger dead = new AtomicInteger();
  final AtomicInteger leaseLost = new AtomicInteger();
  final AtomicLong maxSendMillis = new AtomicLong();
  final AtomicLong claimMicros = new AtomicLong();
  final AtomicLong sendMicros = new AtomicLong();
  final AtomicLong ackMicros = new AtomicLong();

  @Override
  public void batchClaimed(int size, Duration claimTime) {
    claimMicros.addAndGet(claimTime.toNanos() / 1000);
  }

  @Override
  public void batchCompleted(int size, Duration sendTime, Duration ackTime) {
    batches.incrementAndGet();
    maxSendMillis.accumulateAndGet(sendTime.toMillis(), Math::max);
    sendMicros.addAndGet(sendTime.toNanos() / 1000);
    ackMicros.addAndGet(ackTime.toNanos() / 1000);
  }

  /** Batches, and milliseconds spent claiming, sending and acknowledging, summed over relays. */
  String timeSplit() {
    return String.format(
        java.util.Locale.ROOT,
        "%d batches; claim %d ms, send %d ms, ack %d ms",
        batches.get(),
        claimMicros.get() / 1000,
        sendMicros.get() / 1000,
        ackMicros.get() / 1000);
  }

  @Override
  public void transportUnavailable(String reason, Duration pause) {
    unavailable.incrementAndGet();
  }

  @Override
  public void transportRecovered(Duration outage) {
    recovered.incrementAndGet();
  }

  @Override
  public void retried(OutboxEvent event, int attempt, String reason, Duration delay) {
    retried.incrementAndGet();
  }

  @Override
  public void dead(OutboxEvent event, int attempt, String reason) {
    dead.incrementAndGet();
  }

  @Override
  public void leaseLost(int events) {
    leaseLost.addAndGet(events);
  }
}
