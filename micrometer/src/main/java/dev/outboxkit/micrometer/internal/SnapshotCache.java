package dev.outboxkit.micrometer.internal;

import dev.outboxkit.jdbc.OutboxSnapshot;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the outbox snapshot at most once per interval, however often gauges are read: a registry
 * may poll every gauge separately, several registries may poll, and each read would otherwise be a
 * database round trip. A failed read counts as a read (the gauges show NaN until the next
 * interval), so a database outage is not hammered by scrapes.
 */
public final class SnapshotCache {
  private static final Logger log =
      LoggerFactory.getLogger("dev.outboxkit.micrometer.OutboxMetrics");

  private final Supplier<OutboxSnapshot> source;
  private final Duration interval;
  private final Clock clock;
  private Instant readAt;
  private OutboxSnapshot last;

  /**
   * @param source the query, typically {@code admin::snapshot}
   * @param interval how long a read stays fresh
   * @param clock the time source for freshness
   */
  public SnapshotCache(Supplier<OutboxSnapshot> source, Duration interval, Clock clock) {
    this.source = source;
    this.interval = interval;
    this.clock = clock;
  }

  /** The snapshot read within the interval, reading it now if none is; null if the read failed. */
  public synchronized OutboxSnapshot get() {
    Instant now = clock.instant();
    if (readAt == null || !now.isBefore(readAt.plus(interval))) {
      readAt = now;
      try {
        last = source.get();
      } catch (RuntimeException e) {
        last = null;
        log.warn("reading the outbox snapshot for metrics failed: {}", e.toString());
      }
    }
    return last;
  }
}
