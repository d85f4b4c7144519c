package dev.outboxkit.jdbc.internal;

import dev.outboxkit.jdbc.RelayListener;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A relay's retention thread: every {@link #interval} it walks the outbox table once ({@link
 * RetentionSweep}) and, when configured, purges the inbox, beside the relay's claims and the
 * application's appends. A failed pass is logged and tried again at the next interval; nothing it
 * does can fail the relay.
 */
final class ScheduledRetention implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(ScheduledRetention.class);

  /** Shortest time between passes. */
  static final Duration SHORTEST_INTERVAL = Duration.ofSeconds(1);

  /**
   * A pass rests this many times as long as each window took, so it takes at most a fifth of one
   * connection's time and leaves the database to the relays: still tens of thousands of rows a
   * second on PostgreSQL, far beyond what an outbox appends.
   */
  public static final int REST_PER_WORK = 4;

  /** Longest time between passes. */
  static final Duration LONGEST_INTERVAL = Duration.ofMinutes(5);

  /** Purges an inbox; returns rows deleted. */
  @FunctionalInterface
  public interface InboxPurge {
    /** Runs one purge of the inbox. */
    long purge();
  }

  /** A relay's retention as configured: what to purge, and how often. */
  public static final class Plan {
    private final Duration finished;
    private final Duration dead;
    private final InboxPurge inbox;
    private final Duration inboxRetention;
    private final Duration interval;
    private final int window;
    private final int restPerWork;

    /**
     * @param finished retention of PUBLISHED and EXPIRED rows, or null
     * @param dead retention of DEAD rows, or null
     * @param inbox the inbox purge, or null
     * @param inboxRetention the inbox's retention, for the log line; null without an inbox
     * @param interval the time between passes, or null for {@link #interval(Duration)} of the
     *     shortest retention
     * @param window rows read per transaction
     * @param restPerWork the pause after each window, in multiples of the time the window took
     */
    public Plan(
        Duration finished,
        Duration dead,
        InboxPurge inbox,
        Duration inboxRetention,
        Duration interval,
        int window,
        int restPerWork) {
      this.finished = finished;
      this.dead = dead;
      this.inbox = inbox;
      this.inboxRetention = inboxRetention;
      this.interval =
          interval != null ? interval : interval(shortest(finished, dead, inboxRetention));
      this.window = window;
      this.restPerWork = restPerWork;
    }

    private static Duration shortest(Duration... retentions) {
      Duration shortest = null;
      for (Duration d : retentions) {
        if (d != null && (shortest == null || d.compareTo(shortest) < 0)) {
          shortest = d;
        }
      }
      return shortest;
    }

    /** The retention task of a relay, on the relay's store and in its time bound. */
    ScheduledRetention schedule(
        String relay,
        RelayStore store,
        RelayListener listener,
        BooleanSupplier running,
        DoubleSupplier random) {
      return new ScheduledRetention(
          relay,
          store.retentionSweep(window, restPerWork),
          finished,
          dead,
          inbox,
          interval,
          listener,
          running,
          random);
    }

    /** {@return the retentions, for the relay's configuration log line} */
    @Override
    public String toString() {
      return "finished "
          + (finished == null ? "kept" : finished)
          + ", DEAD "
          + (dead == null ? "kept" : dead)
          + (inbox == null ? "" : ", inbox " + inboxRetention);
    }
  }

  private final String relay;
  private final RetentionSweep sweep;
  private final Duration finished;
  private final Duration dead;
  private final InboxPurge inbox;
  private final Duration interval;
  private final RelayListener listener;
  private final BooleanSupplier running;
  private final DoubleSupplier random;

  /**
   * @param finished retention of PUBLISHED and EXPIRED rows, or null
   * @param dead retention of DEAD rows, or null
   * @param inbox the inbox purge, or null
   * @param interval the time between passes, normally {@link #interval(Duration)}
   * @param running false once the relay closes
   */
  public ScheduledRetention(
      String relay,
      RetentionSweep sweep,
      Duration finished,
      Duration dead,
      InboxPurge inbox,
      Duration interval,
      RelayListener listener,
      BooleanSupplier running,
      DoubleSupplier random) {
    this.relay = relay;
    this.sweep = sweep;
    this.finished = finished;
    this.dead = dead;
    this.inbox = inbox;
    this.interval = interval;
    this.listener = listener;
    this.running = running;
    this.random = random;
  }

  /**
   * The time between passes for retentions whose shortest is {@code shortest}: a tenth of it,
   * between {@link #SHORTEST_INTERVAL} and {@link #LONGEST_INTERVAL}.
   */
  public static Duration interval(Duration shortest) {
    Duration d = shortest.dividedBy(10);
    if (d.compareTo(SHORTEST_INTERVAL) < 0) {
      return SHORTEST_INTERVAL;
    }
    return d.compareTo(LONGEST_INTERVAL) > 0 ? LONGEST_INTERVAL : d;
  }

  @Override
  public void run() {
    // Relays started together spread their first passes over one interval.
    sleep(Duration.ofNanos((long) (interval.toNanos() * random.getAsDouble())));
    while (running.getAsBoolean()) {
      pass();
      sleep(interval);
    }
  }

  /** One walk of the table and one inbox purge; failures are logged, never thrown. */
  void pass() {
    long start = System.nanoTime();
    long events = 0;
    long inboxRows = 0;
    try {
      events = sweep.purge(finished, dead, () -> !running.getAsBoolean());
      if (inbox != null && running.getAsBoolean()) {
        inboxRows = inbox.purge();
      }
    } catch (Exception | Error e) { // as the relay's worker: survive, say so, try again later
      if (running.getAsBoolean()) {
        log.warn(
            "[{}] retention pass failed after {} events and {} inbox rows purged; next pass in"
                + " {}: {}",
            relay,
            events,
            inboxRows,
            interval,
            e.toString());
      }
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    if (events + inboxRows > 0) {
      log.info(
          "[{}] retention purged {} events and {} inbox rows in {} ms",
          relay,
          events,
          inboxRows,
          took.toMillis());
    }
    try {
      listener.purged(events, inboxRows, took);
    } catch (Throwable t) {
      log.warn("[{}] listener failed in purged(): {}", relay, t.toString());
    }
  }

  /** Parks for {@code d}, ending early when the relay closes (which unparks this thread). */
  private void sleep(Duration d) {
    Parking.park(d, running, this);
  }
}
