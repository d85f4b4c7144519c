package dev.outboxkit.jdbc;

import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * How many events were published per destination within a recent window, as read by {@link
 * OutboxAdmin#recentThroughput}: counted among the newest rows by append order, so the read costs
 * the same whatever the table holds. Where the window saw more appends than the rows read, the
 * counts are a lower bound ({@link #complete()} is false). Immutable.
 */
public final class RecentThroughput {
  private final Duration window;
  private final boolean complete;
  private final Map<String, Long> published;

  RecentThroughput(Duration window, boolean complete, Map<String, Long> published) {
    this.window = window;
    this.complete = complete;
    this.published = Collections.unmodifiableMap(new HashMap<>(published));
  }

  /** {@return the window counted back from the database's now} */
  public Duration window() {
    return window;
  }

  /**
   * {@return whether every event appended within the window was read} False when the newest rows
   * read all occurred within it: then more were published than counted.
   */
  public boolean complete() {
    return complete;
  }

  /** {@return the events published within the window, all destinations} */
  public long published() {
    return published.values().stream().mapToLong(Long::longValue).sum();
  }

  /**
   * {@return the events published within the window to one destination}
   *
   * @param destination the destination, or null for the transport's default
   */
  public long publishedTo(String destination) {
    return published.getOrDefault(destination, 0L);
  }

  /**
   * {@return the events published per minute to one destination, over the window}
   *
   * @param destination the destination, or null for the transport's default
   */
  public double perMinute(String destination) {
    return publishedTo(destination) * 60_000.0 / Math.max(1, window.toMillis());
  }
}
