package dev.outboxkit.jdbc;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.Transport;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import dev.outboxkit.jdbc.internal.RelayEngine;
import dev.outboxkit.jdbc.internal.RelaySettings;
import dev.outboxkit.jdbc.internal.ScheduledRetention;
import dev.outboxkit.jdbc.internal.TableName;
import dev.outboxkit.jdbc.internal.TimeBound;
import java.time.Clock;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.ThreadFactory;
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

  /** Longest delay honoured when a transport asks for one (e.g. a Retry-After header). */
  private static final Duration MAX_RETRY_AFTER = Duration.ofHours(24);

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
  public static final class Builder {
    private final DataSource dataSource;
    private final Transport transport;
    private String name = "outbox-relay";
    private TableName table = TableName.of(TableName.DEFAULT);
    private SqlDialect dialect;
    private int batchSize = DEFAULT_BATCH_SIZE;
    private Duration pollInterval = DEFAULT_POLL_INTERVAL;
    private Duration leaseDuration = DEFAULT_LEASE_DURATION;
    private Duration sendTimeout = DEFAULT_SEND_TIMEOUT;
    private Duration statementTimeout; // null: the default, fitted to the lease
    private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
    private Duration retryInitial = DEFAULT_RETRY_INITIAL;
    private Duration retryMax = DEFAULT_RETRY_MAX;
    private Duration outageInitial = DEFAULT_OUTAGE_INITIAL;
    private Duration outageMax = DEFAULT_OUTAGE_MAX;
    private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;
    private boolean ordered = true;
    private boolean deleteOnPublish;
    private boolean listenForNotifications;
    private boolean sendIndividually;
    private boolean checkTableAtStart = true;
    private RelayListener listener = RelayListener.NONE;
    private Clock clock = Clock.systemUTC();
    private Random random = new Random();
    private Duration finishedRetention;
    private Duration deadRetention;
    private Inbox inbox;
    private Duration inboxRetention;
    private Duration retentionInterval;
    private int retentionRestPerWork = ScheduledRetention.REST_PER_WORK;
    private ThreadFactory threadFactory;

    private Builder(DataSource dataSource, Transport transport) {
      this.dataSource = OutboxConfigurationException.requireNonNull(dataSource, "dataSource");
      this.transport = OutboxConfigurationException.requireNonNull(transport, "transport");
    }

    /**
     * Names the relay in logs, thread names and lease owners, so an operator can tell which process
     * holds a row; several relays on one table may share a name (a random suffix keeps their leases
     * apart).
     *
     * @param name {@value OutboxConfigurationException#NAME_RULE}; default {@code outbox-relay}
     * @return this builder
     */
    public Builder name(String name) {
      this.name = OutboxConfigurationException.checkName(name);
      return this;
    }

    /**
     * Relays this table instead of {@code outbox_event}, e.g. one outbox per bounded context.
     *
     * @param table {@code name} or {@code schema.name}, a plain SQL identifier
     * @return this builder
     */
    public Builder table(String table) {
      this.table = TableName.of(table);
      return this;
    }

    /**
     * Uses this dialect instead of detecting it from the first connection, e.g. when a proxy or
     * pool hides the database's product name.
     *
     * @param dialect the database's dialect
     * @return this builder
     */
    public Builder dialect(Dialect dialect) {
      return dialect(OutboxConfigurationException.requireNonNull(dialect, "dialect").preset());
    }

    /**
     * Uses this dialect, a preset ({@link Dialect#preset()}) or one of your own, instead of
     * detecting it.
     *
     * @param dialect the database's dialect
     * @return this builder
     */
    public Builder dialect(SqlDialect dialect) {
      this.dialect = OutboxConfigurationException.requireNonNull(dialect, "dialect");
      return this;
    }

    /**
     * Sets how many events are claimed and sent per round. Larger batches amortise the claim and
     * acknowledgement transactions and let transports pipeline; smaller ones bound the work a crash
     * hands to the next lease holder.
     *
     * @param batchSize 1 to {@value OutboxRelay#MAX_BATCH_SIZE}; default {@value
     *     OutboxRelay#DEFAULT_BATCH_SIZE}
     * @return this builder
     */
    public Builder batchSize(int batchSize) {
      if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
        throw new OutboxConfigurationException(
            "batchSize must be between 1 and " + MAX_BATCH_SIZE + ", was " + batchSize);
      }
      this.batchSize = batchSize;
      return this;
    }

    /**
     * Longest pause between polls while the table is idle. After a full batch the relay claims
     * again at once; after an empty one it waits 5 ms, doubling up to this interval.
     *
     * @param pollInterval the longest idle pause, positive; default {@link #DEFAULT_POLL_INTERVAL}
     * @return this builder
     */
    public Builder pollInterval(Duration pollInterval) {
      this.pollInterval = positive("pollInterval", pollInterval);
      return this;
    }

    /**
     * How long a claim holds its events. If the relay dies, its events wait this long before
     * another relay takes them. Must exceed {@link #sendTimeout}.
     *
     * @param leaseDuration the lease, positive; default {@link #DEFAULT_LEASE_DURATION}
     * @return this builder
     */
    public Builder leaseDuration(Duration leaseDuration) {
      this.leaseDuration = positive("leaseDuration", leaseDuration);
      return this;
    }

    /**
     * Sets the longest time the transport may take for one batch; then it is handed back and
     * retried. Shorter than the lease, so a slow send cannot outlive its claim.
     *
     * @param sendTimeout the bound, positive; default {@link #DEFAULT_SEND_TIMEOUT}
     * @return this builder
     */
    public Builder sendTimeout(Duration sendTimeout) {
      this.sendTimeout = positive("sendTimeout", sendTimeout);
      return this;
    }

    /**
     * Bounds the time of every database statement the relay runs, and of the idle time inside its
     * short transactions, on every supported database: on the server (PostgreSQL {@code
     * statement_timeout}, {@code lock_timeout} and {@code idle_in_transaction_session_timeout};
     * MySQL and MariaDB {@code wait_timeout}, {@code innodb_lock_wait_timeout}, and {@code
     * max_execution_time} or {@code max_statement_time}; each for the relay's own transactions
     * only, the connection goes back to the pool as it came) and on the client ({@link
     * java.sql.Connection#setNetworkTimeout}, one second longer). So a relay whose network path to
     * the database dies mid-claim (no FIN, no RST) does not hold the claimed rows for hours: the
     * server ends the stalled transaction after this time and another relay takes the rows; the
     * stalled relay gives up its connection one second later and never reuses it.
     *
     * @param statementTimeout the bound, positive; {@code sendTimeout} plus this must stay below
     *     {@code leaseDuration}; default {@link #DEFAULT_STATEMENT_TIMEOUT}, or less when the lease
     *     leaves less room
     * @return this builder
     */
    public Builder statementTimeout(Duration statementTimeout) {
      this.statementTimeout = TimeBound.checked(statementTimeout);
      return this;
    }

    /** The statement timeout set, or the default fitted into what the lease leaves. */
    Duration effectiveStatementTimeout() {
      if (statementTimeout != null) {
        return statementTimeout;
      }
      Duration room = leaseDuration.minus(sendTimeout).dividedBy(2);
      return room.compareTo(DEFAULT_STATEMENT_TIMEOUT) < 0 ? room : DEFAULT_STATEMENT_TIMEOUT;
    }

    /**
     * Sets the attempts before an event that keeps failing event-specifically becomes DEAD. Only
     * the event's own failures are charged: not a transport outage ({@code unavailable}), not a
     * send cut off by {@code sendTimeout}, not a batch handed back at shutdown, and not a lease
     * that ran out on a relay that died or stalled (counted apart, see {@link
     * OutboxRelay#LEASE_LOSSES_BEFORE_DEAD}).
     *
     * @param maxAttempts at least 1; default {@value OutboxRelay#DEFAULT_MAX_ATTEMPTS}
     * @return this builder
     */
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 1) {
        throw new OutboxConfigurationException(
            "maxAttempts must be at least 1, was " + maxAttempts);
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /**
     * Retry delays: after the n-th failed attempt an event waits a uniformly random time up to
     * {@code min(max, initial * 2^(n-1))} (exponential backoff with full jitter). The jitter
     * spreads the retries of a failed batch, so they do not return together.
     *
     * @param initial cap of the first delay, positive; default {@link #DEFAULT_RETRY_INITIAL}
     * @param max largest delay, not below {@code initial}; default {@link #DEFAULT_RETRY_MAX}
     * @return this builder
     */
    public Builder retryBackoff(Duration initial, Duration max) {
      this.retryInitial = positive("retryBackoff initial", initial);
      this.retryMax = positive("retryBackoff max", max);
      return this;
    }

    /**
     * Pauses while the transport is unavailable: from {@code initial}, doubling up to {@code max};
     * after each pause one event probes the transport, so a broker that is down costs one probe per
     * pause instead of a failed batch per poll.
     *
     * @param initial first pause, positive; default {@link #DEFAULT_OUTAGE_INITIAL}
     * @param max longest pause, not below {@code initial}; default {@link #DEFAULT_OUTAGE_MAX}
     * @return this builder
     */
    public Builder outageBackoff(Duration initial, Duration max) {
      this.outageInitial = positive("outageBackoff initial", initial);
      this.outageMax = positive("outageBackoff max", max);
      return this;
    }

    /**
     * Ordered mode (default true): each aggregate's events are published one after another in
     * append order. A claim takes each aggregate's first unfinished event and the due events behind
     * it (an even share of the batch per aggregate); the relay sends such a run in one call only to
     * a transport whose {@link Transport#keepsOrderWithinBatch()} is true, otherwise in waves of
     * one event per aggregate. Unordered mode claims any available event, for the most parallelism.
     *
     * @param ordered false when consumers do not depend on per-aggregate order
     * @return this builder
     */
    public Builder ordered(boolean ordered) {
      this.ordered = ordered;
      return this;
    }

    /**
     * Deletes delivered events instead of keeping them as PUBLISHED (default false): no purge job
     * is needed, at the cost of the record of what went out and when.
     *
     * @param deleteOnPublish true to delete on acknowledgement
     * @return this builder
     */
    public Builder deleteOnPublish(boolean deleteOnPublish) {
      this.deleteOnPublish = deleteOnPublish;
      return this;
    }

    /**
     * PostgreSQL only (default false): also wake up when PostgreSQL notifies that events were
     * appended, for low latency without a short poll interval and without calling {@link
     * OutboxRelay#wakeUp()}. Needs the trigger from {@link OutboxSchema#createNotifyTrigger} and
     * holds one connection of the data source while the relay runs. Off by default because
     * notifying transactions commit one at a time, which costs append throughput under many
     * concurrent writers (measured in the benchmarks); polling stays on as the safety net.
     *
     * @param listen true to listen for the trigger's notifications
     * @return this builder
     */
    public Builder listenForNotifications(boolean listen) {
      this.listenForNotifications = listen;
      return this;
    }

    /**
     * Sends each event of a batch in its own transport call (default false), with the event's
     * identifiers in the MDC ({@link OutboxMdc}) during the call. Costs nothing with a transport
     * that implements only {@code Transport.send} (its {@code sendBatch} sends one at a time
     * anyway) and lets its log lines carry the event; costs throughput with a transport that
     * pipelines batches (Kafka, JMS, webhooks), whose batches then shrink to one event.
     *
     * @param sendIndividually true to call the transport once per event
     * @return this builder
     */
    public Builder sendIndividually(boolean sendIndividually) {
      this.sendIndividually = sendIndividually;
      return this;
    }

    /**
     * Receives the relay's events, for metrics; see {@link RelayListener}.
     *
     * @param listener called on the relay's thread; keep it fast and non-blocking (what it throws
     *     is logged and ignored)
     * @return this builder
     */
    public Builder listener(RelayListener listener) {
      this.listener = OutboxConfigurationException.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Whether {@link OutboxRelay#start()} first checks that the table exists with every column this
     * version needs, and that a named dialect is the database's (default true). Turn it off only
     * when the table is created after the relay starts; the relay then says DOWN in {@link
     * OutboxRelay#health()}, naming the missing table, until it exists.
     *
     * @param check false to skip the check
     * @return this builder
     */
    public Builder checkTableAtStart(boolean check) {
      this.checkTableAtStart = check;
      return this;
    }

    /**
     * Sets the clock for the relay's own scheduling and lag figures (leases use the database's), so
     * tests can move time instead of sleeping.
     *
     * @param clock the clock; default the UTC system clock
     * @return this builder
     */
    public Builder clock(Clock clock) {
      this.clock = OutboxConfigurationException.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Sets how long {@link OutboxRelay#close()} waits for the batch in flight before interrupting
     * it; keep it below the time your platform gives the application to stop.
     *
     * @param shutdownTimeout the bound, positive; default {@link #DEFAULT_SHUTDOWN_TIMEOUT}
     * @return this builder
     */
    public Builder shutdownTimeout(Duration shutdownTimeout) {
      this.shutdownTimeout = positive("shutdownTimeout", shutdownTimeout);
      return this;
    }

    /**
     * Takes every thread the relay starts from this factory: the background worker of {@link
     * OutboxRelay#start()}, the notification listener, and the threads that run transport calls
     * under {@code sendTimeout} — also for {@link OutboxRelay#runOnce()} and {@link
     * OutboxRelay#drain()}, which claim and acknowledge on the calling thread but send on one of
     * these, so a transport that hangs cannot hold the caller past the timeout. In a Java EE or
     * Jakarta EE container pass the container's {@code ManagedThreadFactory} (e.g. looked up at
     * {@code java:comp/DefaultManagedThreadFactory}); to drive the relay from the container's own
     * scheduler (an EJB {@code @Schedule} method calling {@code drain()}), do not call {@code
     * start()} at all. {@link OutboxRelay#close()} stops and leaves no thread behind either way.
     *
     * @param threadFactory the factory; default: daemon threads named {@code
     *     outboxkit-<name>-<role>-<n>}
     * @return this builder
     */
    public Builder threadFactory(ThreadFactory threadFactory) {
      this.threadFactory =
          OutboxConfigurationException.requireNonNull(threadFactory, "threadFactory");
      return this;
    }

    /**
     * Purges finished rows in the background while the relay runs (default: off, rows are kept
     * until {@link OutboxAdmin#purgeFinished} or your own job deletes them): PUBLISHED and EXPIRED
     * rows that finished longer ago than the retention. A thread of the relay's (from the {@link
     * #threadFactory}) walks the table's primary key every tenth of the shortest retention
     * configured here (at least every second, at most every 5 minutes), in short transactions that
     * each read {@link OutboxAdmin#DEFAULT_PURGE_BATCH_SIZE} rows and lock only those they delete,
     * so claims, acknowledgements and appends are not held up. It runs only after {@link
     * OutboxRelay#start()}; several relays on one table may all have it (they only repeat each
     * other's reads). Each pass is reported to {@link RelayListener#purged}.
     *
     * @param retention how long finished rows are kept, e.g. for audits or to answer "was it
     *     sent?"; positive
     * @return this builder
     */
    public Builder retention(Duration retention) {
      this.finishedRetention = positive("retention", retention);
      return this;
    }

    /**
     * Also purges DEAD rows quarantined longer ago than this (default: DEAD rows are kept until
     * replayed or discarded, see {@link OutboxAdmin}). Runs on the retention thread of {@link
     * #retention(Duration)}, which this starts too. In ordered mode a DEAD row holds back the rest
     * of its aggregate; purging it lets the aggregate move on, as {@link OutboxAdmin#discard}
     * would.
     *
     * @param retention how long DEAD rows are kept for inspection and replay; positive
     * @return this builder
     */
    public Builder deadRetention(Duration retention) {
      this.deadRetention = positive("deadRetention", retention);
      return this;
    }

    /**
     * Also purges this inbox's rows older than the retention ({@link Inbox#purgeOlderThan}, on the
     * relay's data source), on the retention thread of {@link #retention(Duration)}, which this
     * starts too. For a service that both publishes and consumes events in one database.
     *
     * @param inbox the inbox whose table lives in the relay's database
     * @param retention longer than any redelivery can take; positive
     * @return this builder
     */
    public Builder inboxRetention(Inbox inbox, Duration retention) {
      this.inbox = OutboxConfigurationException.requireNonNull(inbox, "inbox");
      this.inboxRetention = positive("inboxRetention", retention);
      return this;
    }

    /** The relay's policy values, as the engine's parts read them. */
    private RelaySettings settings() {
      return new RelaySettings(
          name,
          batchSize,
          ordered,
          leaseDuration,
          sendTimeout,
          maxAttempts,
          LEASE_LOSSES_BEFORE_DEAD,
          deleteOnPublish,
          MAX_RETRY_AFTER,
          sendIndividually,
          clock);
    }

    /** What the engine is made of besides its settings. */
    private RelayEngine.Parts parts() {
      RelayEngine.Parts p = new RelayEngine.Parts();
      p.dataSource = dataSource;
      p.transport = transport;
      p.table = table;
      p.dialect = dialect;
      p.statementTimeout = effectiveStatementTimeout();
      p.pollInterval = pollInterval;
      p.shutdownTimeout = shutdownTimeout;
      p.retryInitial = retryInitial;
      p.retryMax = retryMax;
      p.outageInitial = outageInitial;
      p.outageMax = outageMax;
      p.random = random::nextDouble;
      p.listener = listener;
      p.threadFactory = threadFactory;
      p.listenForNotifications = listenForNotifications;
      p.checkTableAtStart = checkTableAtStart;
      p.retention = retentionPlan();
      return p;
    }

    /** The retention thread's plan, or null when no retention is configured. */
    private ScheduledRetention.Plan retentionPlan() {
      if (finishedRetention == null && deadRetention == null && inbox == null) {
        return null;
      }
      Inbox in = inbox;
      Duration inRetention = inboxRetention;
      DataSource ds = dataSource;
      return new ScheduledRetention.Plan(
          finishedRetention,
          deadRetention,
          in == null ? null : () -> in.purgeOlderThan(ds, inRetention),
          inboxRetention,
          retentionInterval,
          OutboxAdmin.DEFAULT_PURGE_BATCH_SIZE,
          retentionRestPerWork);
    }

    /** Time between retention passes instead of the one derived from the retentions: tests. */
    Builder retentionInterval(Duration interval) {
      this.retentionInterval = positive("retentionInterval", interval);
      return this;
    }

    /**
     * How long retention rests after each window, in multiples of the window's time, instead of
     * {@link ScheduledRetention#REST_PER_WORK}: tests that purge a large table at full speed.
     */
    Builder retentionRestPerWork(int restPerWork) {
      this.retentionRestPerWork = restPerWork;
      return this;
    }

    /** Source of jitter; fixed seeds make tests repeatable. */
    Builder random(Random random) {
      this.random = OutboxConfigurationException.requireNonNull(random, "random");
      return this;
    }

    /**
     * Builds the relay; it does nothing until {@link OutboxRelay#start()} or {@link
     * OutboxRelay#runOnce()}.
     *
     * @return the immutable relay, which logs its effective settings once
     * @throws OutboxConfigurationException if options contradict each other
     */
    public OutboxRelay build() {
      if (sendTimeout.compareTo(leaseDuration) >= 0) {
        throw new OutboxConfigurationException(
            "sendTimeout ("
                + sendTimeout
                + ") must be shorter than leaseDuration ("
                + leaseDuration
                + "), or a slow send could outlive its lease and the events be sent twice at once");
      }
      if (statementTimeout != null
          && sendTimeout.plus(statementTimeout).compareTo(leaseDuration) >= 0) {
        throw new OutboxConfigurationException(
            "sendTimeout ("
                + sendTimeout
                + ") plus statementTimeout ("
                + statementTimeout
                + ") must be shorter than leaseDuration ("
                + leaseDuration
                + "): a batch's lease must outlast its send and the statement that records it");
      }
      if (retryInitial.compareTo(retryMax) > 0) {
        throw new OutboxConfigurationException(
            "retryBackoff initial (" + retryInitial + ") must not exceed max (" + retryMax + ")");
      }
      if (outageInitial.compareTo(outageMax) > 0) {
        throw new OutboxConfigurationException(
            "outageBackoff initial ("
                + outageInitial
                + ") must not exceed max ("
                + outageMax
                + ")");
      }
      return new OutboxRelay(this);
    }

    private static Duration positive(String option, Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new OutboxConfigurationException(option + " must be positive, was " + value);
      }
      return value;
    }
  }
}
