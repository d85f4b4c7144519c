package dev.outboxkit.micrometer;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxSnapshot;
import dev.outboxkit.jdbc.RelayListener;
import dev.outboxkit.micrometer.internal.SnapshotCache;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters for an OutboxKit relay and its table. Pass it to the relay as its listener;
 * give it an {@link OutboxAdmin} to get the backlog gauges too.
 *
 * <pre>{@code
 * OutboxMetrics metrics = OutboxMetrics.builder(meterRegistry)
 *     .admin(OutboxAdmin.create(dataSource))     // backlog gauges, read at most every 10 s
 *     .tag("relay", "orders")
 *     .build();
 * OutboxRelay relay = OutboxRelay.builder(dataSource, transport).listener(metrics).build();
 * }</pre>
 *
 * <p>Meters (all with the builder's tags):
 *
 * <ul>
 *   <li>counters {@value #PUBLISHED}, {@value #RETRIED}, {@value #UNCERTAIN}, {@value #DEAD},
 *       {@value #EXPIRED} (events) and {@value #UNAVAILABLE} (transport outages met), {@value
 *       #LEASE_LOST} (events whose outcome another relay records), {@value #DATABASE_FAILURES}
 *       (rounds that failed on the database) and {@value #TRANSPORT_MISBEHAVED} (a transport that
 *       broke its contract);
 *   <li>timer {@value #LAG}: from the event's {@code occurredAt} to the broker's confirmation;
 *   <li>timers {@value #CLAIM}, {@value #SEND}, {@value #ACK} per batch and distribution summary
 *       {@value #BATCH_SIZE} (events per claimed batch);
 *   <li>with an admin, gauges {@value #PENDING}, {@value #IN_FLIGHT}, {@value #DEAD_ROWS}, {@value
 *       #CANCELLED_ROWS}, {@value #SUPERSEDED_ROWS} (rows) and time gauge {@value
 *       #OLDEST_PENDING_AGE} (0 when nothing is pending). They read one {@link
 *       OutboxAdmin#snapshot()} per {@link Builder#snapshotInterval(Duration) snapshot interval} at
 *       most, on the thread that reads the gauges, and show NaN while the database cannot be read.
 * </ul>
 *
 * Listener methods only update meters: cheap and non-blocking, as the relay requires. Thread-safe.
 */
public final class OutboxMetrics implements RelayListener {
  /** Events published: {@value}. */
  public static final String PUBLISHED = "outboxkit.relay.published";

  /** Failed sends that will be retried: {@value}. */
  public static final String RETRIED = "outboxkit.relay.retried";

  /**
   * Sends that ended without an answer, so may have arrived (each also counted as retried or dead):
   * {@value}. A rise means timeouts after the request left; reconcile those events.
   */
  public static final String UNCERTAIN = "outboxkit.relay.uncertain";

  /** Events quarantined as DEAD: {@value}. */
  public static final String DEAD = "outboxkit.relay.dead";

  /** Events that expired before they could be sent: {@value}. */
  public static final String EXPIRED = "outboxkit.relay.expired";

  /** Transport outages met (each pauses the relay): {@value}. */
  public static final String UNAVAILABLE = "outboxkit.relay.unavailable";

  /** Events whose acknowledgement was refused because another relay took them over: {@value}. */
  public static final String LEASE_LOST = "outboxkit.relay.lease.lost";

  /**
   * Rounds of the relay's thread that failed on the database (unreachable, missing table or
   * column): {@value}. Alert on its rate; the relay's health says DOWN meanwhile.
   */
  public static final String DATABASE_FAILURES = "outboxkit.relay.database.failures";

  /**
   * Times the transport broke its contract (a wrong number of results, order broken after it
   * promised to keep it): {@value}. Any increase is a transport bug.
   */
  public static final String TRANSPORT_MISBEHAVED = "outboxkit.relay.transport.misbehaved";

  /**
   * Send threads left behind in a transport call that ignored the relay's interrupt after {@code
   * sendTimeout}: {@value}. Above zero, the transport needs a deadline of its own.
   */
  public static final String SEND_ABANDONED = "outboxkit.relay.send.abandoned";

  /**
   * Events held back because their destination alone was unavailable (one webhook endpoint of
   * several), tagged {@code destination}: {@value}. The other destinations' events flow meanwhile.
   */
  public static final String DESTINATION_UNAVAILABLE = "outboxkit.relay.destination.unavailable";

  /**
   * Rows deleted by the relay's scheduled retention, tagged {@code table} ({@code outbox} or {@code
   * inbox}): {@value}.
   */
  public static final String PURGED = "outboxkit.relay.retention.purged";

  /** Time from an event's occurrence to its publication: {@value}. */
  public static final String LAG = "outboxkit.relay.lag";

  /** Claim transaction time per batch: {@value}. */
  public static final String CLAIM = "outboxkit.relay.batch.claim";

  /** Transport time per batch: {@value}. */
  public static final String SEND = "outboxkit.relay.batch.send";

  /** Acknowledgement transaction time per batch: {@value}. */
  public static final String ACK = "outboxkit.relay.batch.ack";

  /** Events per claimed batch: {@value}. */
  public static final String BATCH_SIZE = "outboxkit.relay.batch.size";

  /** PENDING rows: {@value}. */
  public static final String PENDING = "outboxkit.outbox.pending";

  /** IN_FLIGHT rows: {@value}. */
  public static final String IN_FLIGHT = "outboxkit.outbox.inflight";

  /** DEAD rows waiting for an operator: {@value}. */
  public static final String DEAD_ROWS = "outboxkit.outbox.dead";

  /**
   * CANCELLED rows kept until retention purges them: {@value}. Withdrawn by the application, never
   * sent; its rise shows how often work is called off before delivery.
   */
  public static final String CANCELLED_ROWS = "outboxkit.outbox.cancelled";

  /**
   * SUPERSEDED rows kept until retention purges them: {@value}. Each one is a delivery saved by a
   * later event with the same supersede key.
   */
  public static final String SUPERSEDED_ROWS = "outboxkit.outbox.superseded";

  /** Age of the oldest PENDING event: {@value}. */
  public static final String OLDEST_PENDING_AGE = "outboxkit.outbox.oldest.pending.age";

  /** How long a snapshot feeds the gauges before it is read again, by default: 10 seconds. */
  public static final Duration DEFAULT_SNAPSHOT_INTERVAL = Duration.ofSeconds(10);

  private final Counter published;
  private final Counter retried;
  private final Counter uncertain;
  private final Counter dead;
  private final Counter expired;
  private final Counter unavailable;
  private final Counter leaseLost;
  private final Counter databaseFailures;
  private final Counter transportMisbehaved;
  private final Counter sendAbandoned;
  private final Counter purgedEvents;
  private final Counter purgedInbox;
  private final MeterRegistry registry;
  private final Tags tags;
  private final Timer lag;
  private final Timer claim;
  private final Timer send;
  private final Timer ack;
  private final DistributionSummary batchSize;
  // The gauges' state; held here too because Micrometer may hold gauge state weakly.
  private final SnapshotCache snapshots;

  private OutboxMetrics(Builder b) {
    MeterRegistry r = b.registry;
    Tags tags = b.tags;
    this.registry = r;
    this.tags = tags;
    published = counter(r, PUBLISHED, "Events published", tags);
    retried = counter(r, RETRIED, "Failed sends that will be retried", tags);
    uncertain = counter(r, UNCERTAIN, "Sends that may have arrived without an answer", tags);
    dead = counter(r, DEAD, "Events quarantined as DEAD", tags);
    expired = counter(r, EXPIRED, "Events expired before they could be sent", tags);
    unavailable = counter(r, UNAVAILABLE, "Transport outages met", tags);
    leaseLost = counter(r, LEASE_LOST, "Events taken over by another relay", tags);
    databaseFailures =
        Counter.builder(DATABASE_FAILURES)
            .description("Relay rounds that failed on the database")
            .baseUnit("failures")
            .tags(tags)
            .register(r);
    transportMisbehaved =
        Counter.builder(TRANSPORT_MISBEHAVED)
            .description("Times the transport broke its contract")
            .tags(tags)
            .register(r);
    sendAbandoned =
        counter(
            r,
            SEND_ABANDONED,
            "Send threads stuck in a transport that ignored its interrupt",
            tags);
    purgedEvents = purgedCounter(r, "outbox", tags);
    purgedInbox = purgedCounter(r, "inbox", tags);
    lag = timer(r, LAG, "From an event's occurrence to its publication", tags);
    claim = timer(r, CLAIM, "Claim transaction per batch", tags);
    send = timer(r, SEND, "Transport time per batch", tags);
    ack = timer(r, ACK, "Acknowledgement transaction per batch", tags);
    batchSize =
        DistributionSummary.builder(BATCH_SIZE)
            .description("Events per claimed batch")
            .baseUnit("events")
            .tags(tags)
            .register(r);
    snapshots =
        b.admin == null ? null : new SnapshotCache(b.admin::snapshot, b.snapshotInterval, b.clock);
    if (snapshots != null) {
      SnapshotCache cache = snapshots;
      gauge(r, PENDING, "PENDING rows", tags, cache, OutboxSnapshot::pending);
      gauge(r, IN_FLIGHT, "IN_FLIGHT rows", tags, cache, OutboxSnapshot::inFlight);
      gauge(r, DEAD_ROWS, "DEAD rows waiting for an operator", tags, cache, OutboxSnapshot::dead);
      gauge(r, CANCELLED_ROWS, "CANCELLED rows retained", tags, cache, OutboxSnapshot::cancelled);
      gauge(
          r, SUPERSEDED_ROWS, "SUPERSEDED rows retained", tags, cache, OutboxSnapshot::superseded);
      TimeGauge.builder(
              OLDEST_PENDING_AGE,
              cache,
              TimeUnit.MILLISECONDS,
              c -> read(c, s -> s.oldestPendingAge().map(Duration::toMillis).orElse(0L)))
          .description("Age of the oldest PENDING event (0 when none)")
          .tags(tags)
          .register(r);
    }
  }

  /**
   * Starts configuring the meters.
   *
   * @param registry where the meters are registered
   * @return a builder
   */
  public static Builder builder(MeterRegistry registry) {
    return new Builder(registry);
  }

  private static Counter counter(MeterRegistry r, String name, String description, Tags tags) {
    return Counter.builder(name).description(description).baseUnit("events").tags(tags).register(r);
  }

  private static Counter purgedCounter(MeterRegistry r, String table, Tags tags) {
    return Counter.builder(PURGED)
        .description("Rows deleted by scheduled retention")
        .baseUnit("rows")
        .tags(tags)
        .tag("table", table)
        .register(r);
  }

  private static Timer timer(MeterRegistry r, String name, String description, Tags tags) {
    return Timer.builder(name).description(description).tags(tags).register(r);
  }

  private static void gauge(
      MeterRegistry r,
      String name,
      String description,
      Tags tags,
      SnapshotCache cache,
      ToDoubleFunction<OutboxSnapshot> figure) {
    Gauge.builder(name, cache, c -> read(c, figure))
        .description(description)
        .baseUnit("events")
        .tags(tags)
        .strongReference(true)
        .register(r);
  }

  private static double read(SnapshotCache cache, ToDoubleFunction<OutboxSnapshot> figure) {
    OutboxSnapshot s = cache.get();
    return s == null ? Double.NaN : figure.applyAsDouble(s);
  }

  @Override
  public void batchClaimed(int size, Duration claimTime) {
    batchSize.record(size);
    claim.record(claimTime);
  }

  @Override
  public void batchCompleted(int size, Duration sendTime, Duration ackTime) {
    send.record(sendTime);
    ack.record(ackTime);
  }

  @Override
  public void published(OutboxEvent event, int attempt, Duration lag) {
    published.increment();
    // A host clock behind the appending host's gives a negative lag; it counts as none.
    this.lag.record(lag.isNegative() ? Duration.ZERO : lag);
  }

  @Override
  public void retried(OutboxEvent event, int attempt, String reason, Duration delay) {
    retried.increment();
  }

  @Override
  public void uncertain(OutboxEvent event, int attempt, String reason) {
    uncertain.increment();
  }

  @Override
  public void dead(OutboxEvent event, int attempt, String reason) {
    dead.increment();
  }

  @Override
  public void expired(OutboxEvent event) {
    expired.increment();
  }

  @Override
  public void transportUnavailable(String reason, Duration pause) {
    unavailable.increment();
  }

  @Override
  public void leaseLost(int events) {
    leaseLost.increment(events);
  }

  @Override
  public void databaseFailed(String error, Duration pause) {
    databaseFailures.increment();
  }

  @Override
  public void transportMisbehaved(String problem) {
    transportMisbehaved.increment();
  }

  @Override
  public void sendAbandoned(int stuck) {
    sendAbandoned.increment();
  }

  @Override
  public void destinationUnavailable(String scope, int events, Duration pause) {
    // One counter per destination the relay met down: a bounded set (endpoints, topics), and the
    // tag an operator alerts on.
    Counter.builder(DESTINATION_UNAVAILABLE)
        .description("Events held back because their destination alone was unavailable")
        .tags(tags)
        .tag("destination", scope)
        .register(registry)
        .increment(events);
  }

  @Override
  public void purged(long events, long inboxRows, Duration took) {
    purgedEvents.increment(events);
    purgedInbox.increment(inboxRows);
  }

  /** Configures {@link OutboxMetrics}. */
  public static final class Builder {
    private final MeterRegistry registry;
    private Tags tags = Tags.empty();
    private OutboxAdmin admin;
    private Duration snapshotInterval = DEFAULT_SNAPSHOT_INTERVAL;
    private Clock clock = Clock.systemUTC();

    private Builder(MeterRegistry registry) {
      this.registry = OutboxConfigurationException.requireNonNull(registry, "registry");
    }

    /**
     * Adds a tag to every meter, e.g. the relay's or the table's name when several run.
     *
     * @param key tag key
     * @param value tag value
     * @return this builder
     */
    public Builder tag(String key, String value) {
      this.tags = tags.and(Tag.of(key, value));
      return this;
    }

    /**
     * Registers the backlog gauges, read from this admin's {@link OutboxAdmin#snapshot()}.
     *
     * @param admin the admin of the relay's table
     * @return this builder
     */
    public Builder admin(OutboxAdmin admin) {
      this.admin = OutboxConfigurationException.requireNonNull(admin, "admin");
      return this;
    }

    /**
     * How long one snapshot feeds the gauges (default 10 s): however often they are read, the
     * database is asked at most once per interval.
     *
     * @param interval positive
     * @return this builder
     */
    public Builder snapshotInterval(Duration interval) {
      if (interval == null || interval.isNegative() || interval.isZero()) {
        throw new OutboxConfigurationException(
            "snapshotInterval must be positive, was " + interval);
      }
      this.snapshotInterval = interval;
      return this;
    }

    /**
     * The clock that decides when a snapshot is stale (default the system clock); tests move it.
     *
     * @param clock the clock
     * @return this builder
     */
    public Builder clock(Clock clock) {
      this.clock = OutboxConfigurationException.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Registers the meters.
     *
     * @return the listener to pass to {@code OutboxRelay.Builder#listener}
     */
    public OutboxMetrics build() {
      return new OutboxMetrics(this);
    }
  }
}
