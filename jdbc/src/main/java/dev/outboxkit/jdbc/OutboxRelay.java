package dev.outboxkit.jdbc;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.Transport;
import dev.outboxkit.jdbc.internal.RelayEngine;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Publishes committed outbox events through a {@link Transport}, at least once, and records the
 * outcome in the table.
 *
 * <pre>{@code
 * OutboxRelay relay = OutboxRelay.builder(dataSource, transport)
 *     .batchSize(200)
 *     .pollInterval(Duration.ofMillis(500))
 *     .build();
 * relay.start();          // background thread; relay.close() on shutdown
 * }</pre>
 *
 * <p>Each round claims a batch in one short transaction ({@code FOR UPDATE SKIP LOCKED}, so any
 * number of relays in any number of processes share the table safely), sends it with no transaction
 * open, then records every outcome in a second short transaction fenced by the lease owner. Leases
 * and availability use the database clock, so relay hosts with skewed clocks agree. A relay that
 * dies mid-batch loses nothing: its leases expire and another relay (or its own restart) claims the
 * rows again.
 *
 * <p>In ordered mode (the default) an event is claimable only when every earlier event of its
 * aggregate is finished, so each aggregate's events are published in append order, across retries
 * and relays; a DEAD event holds back its own aggregate only, until replayed or discarded.
 */
public final class OutboxRelay implements AutoCloseable {
  /** Events per claim by default: {@value}. */
  public static final int DEFAULT_BATCH_SIZE = 100;

  /** Largest accepted batch size: {@value}. */
  public static final int MAX_BATCH_SIZE = 5_000;

  /** Longest pause between polls of an idle table by default: 500 ms. */
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(500);

  /** How long a claim holds its events by default: 60 s. */
  public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(60);

  /** How long a transport may take for one batch by default: 30 s. */
  public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofSeconds(30);

  /** Attempts before an event that keeps failing becomes DEAD, by default: {@value}. */
  public static final int DEFAULT_MAX_ATTEMPTS = 10;

  /** Cap of the first retry delay by default: 1 s (doubling per attempt, full jitter). */
  public static final Duration DEFAULT_RETRY_INITIAL = Duration.ofSeconds(1);

  /** Largest retry delay by default: 10 min. */
  public static final Duration DEFAULT_RETRY_MAX = Duration.ofMinutes(10);

  /** First pause after a transport outage by default: 1 s (doubling while it lasts). */
  public static final Duration DEFAULT_OUTAGE_INITIAL = Duration.ofSeconds(1);

  /** Longest pause during a transport outage by default: 30 s. */
  public static final Duration DEFAULT_OUTAGE_MAX = Duration.ofSeconds(30);

  /**
   * Longest time of one database statement of the relay, and of the idle time inside its short
   * transactions, by default: 10 s — or half of what {@code leaseDuration} leaves beyond {@code
   * sendTimeout}, when that is less.
   */
  public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(10);

  /**
   * Leases an event may lose — expire with no outcome recorded, because every relay that took it
   * died or hung — before it is quarantined as DEAD: {@value}. Lost leases are not attempts: a
   * relay that stalled after delivering costs the event nothing from its attempt budget.
   */
  public static final int LEASE_LOSSES_BEFORE_DEAD = 5;

  /**
   * Most threads that run transport calls at once, per relay: {@value}. A transport call that
   * overruns {@code sendTimeout} and ignores the interrupt that follows keeps its thread (reported
   * through {@link RelayListener#sendAbandoned}); with every one stuck, batches are handed back as
   * in an outage until one returns.
   */
  public static final int MAX_SEND_THREADS = RelayEngine.MAX_SEND_THREADS;

  /** How long {@link #close()} waits for the batch in flight by default: 10 s. */
  public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);

  private final RelayEngine engine;

  /** Where a relay is in its life, for health checks: see {@link #state()}. */
  public enum State {
    /** Built, not started: it relays only when {@link #runOnce()} or {@link #drain()} is called. */
    NEW,
    /** Started: its background thread claims, sends and records batches. */
    RUNNING,
    /**
     * Started, but its background thread ended without {@link #close()}: it relays nothing more.
     * The cause was logged at ERROR. Close it and build a new one.
     */
    FAILED,
    /** Closed: every method but {@link #close()} and {@link #state()} refuses to run. */
    CLOSED
  }

  private OutboxRelay(Builder b) {
    this.engine = new RelayEngine(b.settings(), b.parts());
  }

  /**
   * Starts configuring a relay.
   *
   * @param dataSource where the relay borrows connections for its short transactions
   * @param transport where events go; the relay does not close it
   * @return a builder with the {@code DEFAULT_*} settings
   */
  public static Builder builder(DataSource dataSource, Transport transport) {
    return new Builder(dataSource, transport);
  }

  /** {@return the relay's name, as in its log lines and lease owners} */
  public String name() {
    return engine.name();
  }

  /**
   * Where the relay is in its life, for a health check: {@link State#RUNNING} while its background
   * thread works, {@link State#FAILED} if that thread ended without {@link #close()} (logged at
   * ERROR; it survives every failure of the database, the transport and the listener, so this means
   * a failure of the JVM itself, such as running out of memory while handling an error).
   *
   * @return the state now
   */
  public State state() {
    if (engine.isClosed()) {
      return State.CLOSED;
    }
    if (engine.isFailed()) {
      return State.FAILED;
    }
    return engine.isRunning() ? State.RUNNING : State.NEW;
  }

  /**
   * The relay's health for a health check: {@link RelayHealth.Status#UP} while it relays, {@link
   * RelayHealth.Status#DEGRADED} while its transport is unavailable, {@link
   * RelayHealth.Status#DOWN} while its database or table cannot be reached (a missing table, a
   * closed data source, a database that is down) and when it is not started, closed or {@link
   * State#FAILED}; with the last error and since when. Cheap: it reads what the relay's thread
   * recorded, no database call.
   *
   * @return the health now
   */
  public RelayHealth health() {
    return engine.health();
  }

  /**
   * Starts the background thread that claims, sends and records batches until {@link #close()}.
   * First, unless built with {@code checkTableAtStart(false)}, checks on one connection that the
   * table exists with every column this version needs and that a named dialect is the database's; a
   * database that cannot be reached then does not stop the start (the relay retries, and says DOWN
   * in {@link #health()} meanwhile).
   *
   * @throws IllegalStateException if the relay is closed or already started
   * @throws OutboxSchemaException if the table is missing or lacks columns: the message has the DDL
   *     or the {@code ALTER TABLE} statements to run; the relay is not started
   * @throws OutboxConfigurationException if the named dialect is not the database's; the relay is
   *     not started
   */
  public void start() {
    engine.start();
  }

  /**
   * Claims, sends and records one batch on the calling thread: the deterministic way to drive a
   * relay in tests and scripts. Safe alongside a started relay (claims never overlap).
   *
   * @return events handled (delivered, retried, quarantined, expired or handed back); 0 when
   *     nothing was claimable or the relay is pausing for a transport outage
   * @throws OutboxStorageException if the database failed; nothing is lost
   * @throws OutboxConfigurationException before claiming anything, if called inside a JTA
   *     transaction whose connections the data source enlists: the relay commits its own short
   *     transactions and needs a non-JTA data source, or a call outside the JTA transaction
   * @throws IllegalStateException before claiming anything, if the relay is closed
   */
  public int runOnce() {
    return engine.runOnce();
  }

  /**
   * Runs batches on the calling thread until none is claimable: everything available now is
   * delivered, scheduled for retry, quarantined or expired. While batches come back full, the next
   * is claimed while one is sent, and a batch's acknowledgement and the following claim share one
   * transaction, as on the relay's own thread. Handy in tests.
   *
   * @return events handled
   * @throws OutboxStorageException if the database failed; nothing is lost
   * @throws OutboxConfigurationException before claiming anything, as for {@link #runOnce()}
   * @throws IllegalStateException before claiming anything, if the relay is closed
   */
  public int drain() {
    return engine.drain();
  }

  /**
   * Drains as {@link #drain()} does, then also the events that come due within {@code maxWait} — a
   * retry after its backoff, an event appended with a delay, a down destination's held events — and
   * returns as soon as nothing deliverable is left: every event delivered, DEAD or EXPIRED, PENDING
   * only behind a DEAD event of its aggregate (ordered mode), or not due before {@code maxWait}
   * passes. The "deliver it all now" of a test that provokes retries.
   *
   * <p>The report counts the outcomes this relay recorded meanwhile (its own background thread's
   * too, if it is started) and what was left PENDING, by the database clock.
   *
   * @param maxWait how long to wait at most for events that are not due yet
   * @return what was delivered, retried, quarantined, expired and handed back, and what is left
   * @throws OutboxStorageException if the database failed; nothing is lost
   * @throws OutboxConfigurationException before claiming anything, as for {@link #runOnce()}, or if
   *     {@code maxWait} is negative
   * @throws IllegalStateException before claiming anything, if the relay is closed
   */
  public DrainReport drainUntilDone(Duration maxWait) {
    OutboxConfigurationException.requireNonNull(maxWait, "maxWait");
    if (maxWait.isNegative()) {
      throw new OutboxConfigurationException(
          "drainUntilDone: maxWait must not be negative, was " + maxWait);
    }
    RelayEngine.Drained d = engine.drainUntilDone(maxWait);
    return new DrainReport(
        d.published,
        d.retried,
        d.dead,
        d.expired,
        d.handedBack,
        d.behindDead,
        d.pending,
        d.timedOut);
  }

  /**
   * Hints that events were just committed, so the background thread claims at once instead of
   * waiting out its idle pause. Call it after your commit; it is cheap and never blocks. Wake-ups
   * coalesce (at most one is pending), and a pause after a transport outage or a database failure
   * is honoured: the relay claims when it ends, not before.
   */
  public void wakeUp() {
    engine.wakeUp();
  }

  /**
   * Stops claiming, waits up to the shutdown timeout for the batch in flight, then interrupts it;
   * events claimed but not confirmed go straight back to PENDING, so nothing waits for a lease to
   * expire — also for a batch whose claim is running when close is called (it is handed back
   * unsent). Returns within the shutdown timeout plus one statement timeout (the hand-back's
   * transaction). Does not close the transport or the data source. Idempotent.
   */
  @Override
  public void close() {
    engine.close();
  }

  /** Configures an {@link OutboxRelay}. Every option is checked where it is set. */
  public static final class Builder extends RelayOptions<Builder> {
    private Builder(DataSource dataSource, Transport transport) {
      super(dataSource, transport);
    }

    /**
     * Builds the relay; it does nothing until {@link OutboxRelay#start()} or {@link
     * OutboxRelay#runOnce()}.
     *
     * @return the immutable relay, which logs its effective settings once
     * @throws OutboxConfigurationException if options contradict each other
     */
    public OutboxRelay build() {
      checkConsistent();
      return new OutboxRelay(this);
    }

    @Override
    Builder self() {
      return this;
    }
  }
}
