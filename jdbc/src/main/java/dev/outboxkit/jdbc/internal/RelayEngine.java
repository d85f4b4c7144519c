package dev.outboxkit.jdbc.internal;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.Transport;
import dev.outboxkit.jdbc.OutboxStorageException;
import dev.outboxkit.jdbc.RelayHealth;
import dev.outboxkit.jdbc.RelayListener;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay engine behind {@code OutboxRelay}, its one entry: wires the parts of one relay (its
 * store, cycle, worker, health, threads, listener and retention) and runs their lifecycle. Public
 * only because the façade lives in another package; nothing else uses it.
 */
public final class RelayEngine {
  /**
   * Most threads that run transport calls at once, per relay: the relay's own batch, a few callers
   * of {@code runOnce}, and calls abandoned in a transport that ignores interrupts — which
   * therefore cost a bounded number of threads.
   */
  public static final int MAX_SEND_THREADS = 4;

  private static final Logger log = LoggerFactory.getLogger("dev.outboxkit.jdbc.OutboxRelay");

  /** How often {@link #drainUntilDone} looks again for events that came due. */
  private static final long DRAIN_POLL_MILLIS = 20;

  /** What the engine is made of besides its {@link RelaySettings}, filled in once by the façade. */
  public static final class Parts {
    /** Where the relay borrows connections. */
    public DataSource dataSource;

    /** Where events go. */
    public Transport transport;

    /** The outbox table. */
    public TableName table;

    /** The dialect, or null to detect it. */
    public SqlDialect dialect;

    /** The time bound of each statement and of the idle time inside a transaction. */
    public Duration statementTimeout;

    /** Longest idle pause. */
    public Duration pollInterval;

    /** How long closing waits for the batch in flight. */
    public Duration shutdownTimeout;

    /** Cap of the first retry delay of a failed event. */
    public Duration retryInitial;

    /** Largest retry delay. */
    public Duration retryMax;

    /** First pause after a transport or destination outage. */
    public Duration outageInitial;

    /** Longest pause during an outage. */
    public Duration outageMax;

    /** Source of jitter. */
    public DoubleSupplier random;

    /** Told what the relay does. */
    public RelayListener listener;

    /** The user's thread factory, or null for the relay's own daemon threads. */
    public ThreadFactory threadFactory;

    /** Listen for PostgreSQL notifications. */
    public boolean listenForNotifications;

    /** Check the table when starting. */
    public boolean checkTableAtStart;

    /** Retention of PUBLISHED and EXPIRED rows, or null to keep them. */
    public Duration finishedRetention;

    /** Retention of DEAD rows, or null to keep them. */
    public Duration deadRetention;

    /** Purges the inbox once, or null without an inbox. */
    public LongSupplier inboxPurge;

    /** The inbox's retention, for the log; null without an inbox. */
    public Duration inboxRetention;

    /** Time between retention passes, or null to derive it from the shortest retention. */
    public Duration retentionInterval;

    /** Rows read per retention transaction. */
    public int retentionWindow;

    /** Retention's pause after each window, in multiples of the time the window took. */
    public int retentionRestPerWork = RETENTION_REST_PER_WORK;

    /** The retention thread's plan, or null when no retention is configured. */
    ScheduledRetention.Plan retentionPlan() {
      if (finishedRetention == null && deadRetention == null && inboxPurge == null) {
        return null;
      }
      return new ScheduledRetention.Plan(
          finishedRetention,
          deadRetention,
          inboxPurge == null ? null : inboxPurge::getAsLong,
          inboxRetention,
          retentionInterval,
          retentionWindow,
          retentionRestPerWork);
    }
  }

  /** Retention's pause after each window by default, in multiples of the window's time. */
  public static final int RETENTION_REST_PER_WORK = ScheduledRetention.REST_PER_WORK;

  private final RelaySettings settings;
  private final String table;
  private final Parts parts;
  private final RelayThreads threads;
  private final ExecutorService sendPool;
  private final RelayStore store;
  private final TimeBound bound;
  private final RelayCycle cycle;
  private final HealthMonitor health;
  private final RelayWorker worker;
  private final NotificationListener notifications;
  private final ScheduledRetention retention;
  private final Object lifecycle = new Object();
  private volatile Thread workerThread;
  private volatile Thread retentionThread;
  private volatile boolean running;
  private volatile boolean closed;

  /** Wires a relay; it does nothing until {@link #start()}, {@link #runOnce()} or a drain. */
  public RelayEngine(RelaySettings settings, Parts parts) {
    this.settings = settings;
    this.parts = parts;
    this.table = parts.table.qualified();
    this.threads = new RelayThreads(parts.threadFactory, settings.name);
    this.sendPool = threads.senderPool();
    this.store =
        new RelayStore(parts.dataSource, parts.table, parts.dialect, parts.statementTimeout);
    this.bound = store.bound();
    OutageBreaker breaker = new OutageBreaker(settings.clock, outageBackoff());
    this.health = new HealthMonitor(settings.name, settings.clock, parts.listener, breaker);
    this.cycle =
        new RelayCycle(
            settings,
            store,
            parts.transport,
            new Backoff(parts.retryInitial, parts.retryMax, parts.random),
            breaker,
            new DestinationOutages(settings.clock, outageBackoff(), parts.random),
            parts.listener,
            sendPool,
            () -> closed,
            settings.name + "@" + UUID.randomUUID().toString().substring(0, 8),
            this::wakeUp);
    this.worker =
        new RelayWorker(settings, cycle, health, parts.pollInterval, () -> running, this::diagnose);
    this.notifications =
        parts.listenForNotifications
            ? new NotificationListener(
                parts.dataSource, parts.table.simple(), settings.name, this::wakeUp)
            : null;
    ScheduledRetention.Plan retentionPlan = parts.retentionPlan();
    this.retention =
        retentionPlan == null
            ? null
            : retentionPlan.schedule(
                settings.name, store, parts.listener, () -> running, parts.random);
    logConfiguration(retentionPlan);
  }

  private void logConfiguration(ScheduledRetention.Plan retentionPlan) {
    log.info(
        "[{}] relay configured: table={}, batchSize={}, ordered={}, pollInterval={}, lease={},"
            + " sendTimeout={}, statementTimeout={}, maxAttempts={}, retryBackoff={}..{},"
            + " outagePause={}..{},"
            + " deleteOnPublish={}, listenForNotifications={}, sendIndividually={}, transport={},"
            + " threads={}, retention={}, checkTableAtStart={}",
        settings.name,
        parts.table,
        settings.batchSize,
        settings.ordered,
        parts.pollInterval,
        settings.leaseDuration,
        settings.sendTimeout,
        parts.statementTimeout,
        settings.maxAttempts,
        parts.retryInitial,
        parts.retryMax,
        parts.outageInitial,
        parts.outageMax,
        settings.deleteOnPublish,
        parts.listenForNotifications,
        settings.sendIndividually,
        parts.transport.getClass().getSimpleName(),
        parts.threadFactory == null ? "own daemon threads" : "from " + parts.threadFactory,
        retentionPlan == null ? "off" : retentionPlan,
        parts.checkTableAtStart);
  }

  private Backoff outageBackoff() {
    return new Backoff(parts.outageInitial, parts.outageMax, parts.random);
  }

  /** {@return the relay's name} */
  public String name() {
    return settings.name;
  }

  /** {@return whether {@link #start()} ran and {@link #close()} did not} */
  public boolean isRunning() {
    return running;
  }

  /** {@return whether {@link #close()} ran} */
  public boolean isClosed() {
    return closed;
  }

  /** {@return whether the background thread ended without {@link #close()}} */
  public boolean isFailed() {
    return !closed && worker.ended();
  }

  /** {@return the health now, from what the relay's threads recorded; no database call} */
  public RelayHealth health() {
    return health.health(downReason());
  }

  /** Why the relay relays nothing whatever the database and transport do; null while it runs. */
  private String downReason() {
    if (closed) {
      return "closed";
    }
    if (isFailed()) {
      return "the relay's thread ended unexpectedly (logged at ERROR): close it and build a new one";
    }
    return running ? null : "not started";
  }

  /** Starts the background threads; see {@code OutboxRelay.start()}. */
  public void start() {
    synchronized (lifecycle) {
      if (closed) {
        throw new IllegalStateException("relay " + settings.name + " is closed");
      }
      if (running) {
        throw new IllegalStateException("relay " + settings.name + " is already started");
      }
      if (parts.checkTableAtStart) {
        checkTable();
      }
      // Every thread first: a factory that refuses one leaves the relay unstarted, not half so.
      Thread w = threads.newThread(worker, "worker");
      Thread l = notifications == null ? null : threads.newThread(notifications, "listen");
      Thread r = retention == null ? null : threads.newThread(retention, "retention");
      running = true;
      health.started();
      workerThread = w;
      retentionThread = r;
      w.start();
      if (l != null) {
        l.start();
      }
      if (r != null) {
        r.start();
      }
      log.info("[{}] relay started", settings.name);
    }
  }

  /**
   * The start-up check: schema mistakes fail the start; a database that cannot be reached does not
   * (the loop retries it, and the health says DOWN).
   */
  private void checkTable() {
    try {
      TableCheck.verify(parts.dataSource, bound, parts.dialect, parts.table);
    } catch (SQLException e) {
      log.warn(
          "[{}] could not check table {} at start, the relay starts anyway and retries: {}",
          settings.name,
          table,
          e.getMessage());
    }
  }

  /**
   * What a database failure of the relay means: a lock wait that ran out, named as such; for the
   * failures {@link TableCheck#worthExplaining} picks (a missing table or column, a wrong dialect),
   * the start-up check's answer, which names the statements to run; otherwise the driver's message,
   * without borrowing another connection from a database that is not answering.
   */
  private String diagnose(SQLException e) {
    if (store.isLockTimeout(e)) {
      return "a lock wait ran out: another transaction holds rows of "
          + table
          + " (or the whole table) longer than the database's lock timeout (statementTimeout, "
          + bound.statementTimeout()
          + ", where the dialect bounds transactions); find it in the database's lock view ["
          + e.getMessage()
          + "]";
    }
    if (TableCheck.worthExplaining(e, parts.dialect)) {
      try {
        TableCheck.verify(parts.dataSource, bound, parts.dialect, parts.table);
      } catch (SQLException | RuntimeException check) {
        if (check instanceof OutboxConfigurationException) {
          return check.getMessage();
        }
      }
    }
    return e.getMessage();
  }

  private OutboxStorageException storageFailure(SQLException e) {
    String why = diagnose(e);
    SQLException cause =
        why.equals(e.getMessage())
            ? e
            : new SQLException(why, e.getSQLState(), e.getErrorCode(), e);
    return new OutboxStorageException("relay a batch", table, cause);
  }

  /** One round on the calling thread; see {@code OutboxRelay.runOnce()}. */
  public int runOnce() {
    refuseOnCallersThread("runOnce()");
    try {
      cycle.lookBelowFloor();
      return cycle.runOnce();
    } catch (SQLException e) {
      throw storageFailure(e);
    }
  }

  /** Rounds on the calling thread until none is claimable; see {@code OutboxRelay.drain()}. */
  public int drain() {
    refuseOnCallersThread("drain()");
    int total = 0;
    try {
      cycle.lookBelowFloor();
      while (!closed) {
        int n = cycle.runWhileFull();
        total += n;
        if (n == 0) {
          if (cycle.lookBelowFloor()) {
            continue; // a long drain walked a floor again: nothing is left only if none is below
          }
          if (!cycle.hasStragglers()) {
            break;
          }
          // Sends left to finish on their own: their outcomes may make more claimable.
          cycle.finishStragglers();
        }
      }
    } catch (SQLException e) {
      throw storageFailure(e);
    }
    return total;
  }

  /**
   * Before anything: the relay must be open, and the application's thread may be inside a JTA
   * transaction (an EJB method, say), in which the relay's own commits would fail after its claim
   * changed rows.
   */
  private void refuseOnCallersThread(String method) {
    if (closed) {
      throw new IllegalStateException(
          "relay " + settings.name + " is closed; " + method + " needs an open relay");
    }
    try {
      Transactions.refuseJtaTransaction(parts.dataSource, "OutboxRelay." + method, bound);
    } catch (SQLException e) {
      throw storageFailure(e);
    }
  }

  /** What {@link #drainUntilDone} did and left. */
  public static final class Drained {
    /** Outcomes recorded meanwhile, by kind. */
    public final long published, retried, dead, expired, handedBack;

    /** PENDING rows left behind a DEAD row of their aggregate (ordered mode), and in all. */
    public final long behindDead, pending;

    /** Whether events that were still deliverable were left when the wait ran out. */
    public final boolean timedOut;

    Drained(long[] done, RelayStore.DrainLeft left, long deliverable, boolean ordered) {
      this.published = done[Ack.Kind.PUBLISHED.ordinal()];
      this.retried = done[Ack.Kind.RETRY.ordinal()];
      this.dead = done[Ack.Kind.DEAD.ordinal()];
      this.expired = done[Ack.Kind.EXPIRED.ordinal()];
      this.handedBack = done[Ack.Kind.RELEASE.ordinal()] + done[Ack.Kind.HOLD.ordinal()];
      this.behindDead = ordered ? left.behindDead : 0;
      this.pending = left.pending;
      this.timedOut = deliverable > 0;
    }
  }

  /** Drains, then also what comes due within {@code maxWait}; see {@code OutboxRelay}. */
  public Drained drainUntilDone(Duration maxWait) {
    long deadline = System.nanoTime() + maxWait.toNanos();
    long[] before = cycle.outcomes();
    drain();
    RelayStore.DrainLeft left = drainLeft(deadline);
    while (deliverable(left) > 0
        && System.nanoTime() - deadline < 0
        && !Thread.currentThread().isInterrupted()) {
      long wait = deadline - System.nanoTime();
      LockSupport.parkNanos(Math.min(wait, TimeUnit.MILLISECONDS.toNanos(DRAIN_POLL_MILLIS)));
      drain();
      left = drainLeft(deadline);
    }
    long[] done = cycle.outcomes();
    for (int i = 0; i < done.length; i++) {
      done[i] -= before[i];
    }
    return new Drained(done, left, deliverable(left), settings.ordered);
  }

  /** PENDING events the drain may still deliver: due, and in ordered mode not behind DEAD. */
  private long deliverable(RelayStore.DrainLeft left) {
    return settings.ordered ? left.dueNotBehindDead : left.due;
  }

  private RelayStore.DrainLeft drainLeft(long deadlineNanos) {
    Duration within = Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
    try {
      return store.drainLeft(within);
    } catch (SQLException e) {
      throw storageFailure(e);
    }
  }

  /** Ends the background thread's idle pause; see {@code OutboxRelay.wakeUp()}. */
  public void wakeUp() {
    worker.wakeUp();
  }

  /** Stops the relay; see {@code OutboxRelay.close()}. Idempotent. */
  public void close() {
    Thread w;
    synchronized (lifecycle) {
      if (closed) {
        return;
      }
      closed = true;
      running = false;
      w = workerThread;
    }
    if (notifications != null) {
      notifications.stop();
    }
    Thread r = retentionThread;
    if (r != null) {
      LockSupport.unpark(r); // it ends after the window it is in, one short transaction
    }
    if (w != null) {
      stopWorker(w);
    }
    sendPool.shutdownNow();
    Duration networkTimeout = bound.networkTimeout();
    try {
      sendPool.awaitTermination(1, TimeUnit.SECONDS);
      // The listener notices stop() within its half-second wait and gives its connection back;
      // the retention thread ends after its current window.
      threads.awaitEnded(networkTimeout.plusSeconds(1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    int stuck = cycle.abandonedSends();
    if (stuck > 0) {
      log.warn(
          "[{}] {} send threads are still stuck in transport calls that ignored their interrupt;"
              + " they end when the transport returns",
          settings.name,
          stuck);
    }
    log.info("[{}] relay stopped", settings.name);
  }

  /** Waits up to the shutdown timeout for the batch in flight, then interrupts it. */
  private void stopWorker(Thread w) {
    LockSupport.unpark(w);
    try {
      w.join(parts.shutdownTimeout.toMillis());
      if (w.isAlive()) {
        log.warn(
            "[{}] batch still in flight after {}; interrupting it",
            settings.name,
            parts.shutdownTimeout);
        w.interrupt();
        // It gives up the send within Sender.GRACE; the hand-back is one short transaction.
        w.join(bound.networkTimeout().plusSeconds(1).toMillis());
        if (w.isAlive()) {
          log.warn("[{}] relay thread still busy after the shutdown timeout", settings.name);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
