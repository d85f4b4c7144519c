package dev.outboxkit.jdbc;

import dev.outboxkit.OutboxEvent;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The tests' {@link RelayListener}: records what relays report, summed over every relay that shares
 * it, for the tests to wait on and assert. Relays call it from their own threads, so every record
 * is thread-safe. Shared with other modules' tests through this module's test jar.
 */
public final class RecordingListener implements RelayListener {
  /** Batches completed. */
  public final AtomicInteger batches = new AtomicInteger();

  /** The longest time a batch spent in the transport, in milliseconds. */
  public final AtomicLong maxSendMillis = new AtomicLong();

  /** Time spent claiming, summed over batches. */
  public final AtomicLong claimMicros = new AtomicLong();

  /** Time spent in the transport, summed over batches. */
  public final AtomicLong sendMicros = new AtomicLong();

  /** Time spent acknowledging, summed over batches. */
  public final AtomicLong ackMicros = new AtomicLong();

  /** How often each event was reported published: above 1 means it was acknowledged twice. */
  public final Map<UUID, Integer> published = new ConcurrentHashMap<>();

  /** Failed sends charged and scheduled again. */
  public final AtomicInteger retried = new AtomicInteger();

  /** Sends reported uncertain: the event's id, once per such send. */
  public final List<UUID> uncertain = new CopyOnWriteArrayList<>();

  /** Events quarantined as DEAD. */
  public final AtomicInteger dead = new AtomicInteger();

  /** Transport outages reported. */
  public final AtomicInteger unavailable = new AtomicInteger();

  /** Transport recoveries reported. */
  public final AtomicInteger recovered = new AtomicInteger();

  /** Rounds that held back the events of one unavailable destination. */
  public final AtomicInteger destinationDown = new AtomicInteger();

  /** Acknowledgements refused because a lease had run out, summed over reports. */
  public final AtomicInteger leaseLost = new AtomicInteger();

  /** Each database failure's message, in the order reported. */
  public final List<String> databaseFailures = new CopyOnWriteArrayList<>();

  /** Each database outage's length, in the order the database came back. */
  public final List<Duration> databaseRecoveries = new CopyOnWriteArrayList<>();

  /** Retention passes ended. */
  public final AtomicLong purgePasses = new AtomicLong();

  /** Outbox rows deleted by retention, summed over passes. */
  public final AtomicLong purgedEvents = new AtomicLong();

  /** Inbox rows deleted by retention, summed over passes. */
  public final AtomicLong purgedInboxRows = new AtomicLong();

  /** A listener that has heard nothing yet. */
  public RecordingListener() {}

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

  @Override
  public void published(OutboxEvent event, int attempt, Duration lag) {
    published.merge(event.id(), 1, Integer::sum);
  }

  @Override
  public void retried(OutboxEvent event, int attempt, String reason, Duration delay) {
    retried.incrementAndGet();
  }

  @Override
  public void uncertain(OutboxEvent event, int attempt, String reason) {
    uncertain.add(event.id());
  }

  @Override
  public void dead(OutboxEvent event, int attempt, String reason) {
    dead.incrementAndGet();
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
  public void destinationUnavailable(String scope, int events, Duration pause) {
    destinationDown.incrementAndGet();
  }

  @Override
  public void leaseLost(int events) {
    leaseLost.addAndGet(events);
  }

  @Override
  public void databaseFailed(String error, Duration pause) {
    databaseFailures.add(error);
  }

  @Override
  public void databaseRecovered(Duration outage) {
    databaseRecoveries.add(outage);
  }

  @Override
  public void purged(long events, long inboxRows, Duration took) {
    purgedEvents.addAndGet(events);
    purgedInboxRows.addAndGet(inboxRows);
    purgePasses.incrementAndGet();
  }

  /** Batches, and milliseconds spent claiming, sending and acknowledging, summed over relays. */
  public String timeSplit() {
    return String.format(
        Locale.ROOT,
        "%d batches; claim %d ms, send %d ms, ack %d ms",
        batches.get(),
        claimMicros.get() / 1000,
        sendMicros.get() / 1000,
        ackMicros.get() / 1000);
  }
}
