package dev.outboxkit.jdbc;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.Transport;
import dev.outboxkit.jdbc.internal.RelayEngine;
import dev.outboxkit.jdbc.internal.RelaySettings;
import dev.outboxkit.jdbc.internal.TableName;
import java.time.Clock;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.ThreadFactory;
import javax.sql.DataSource;

/**
 * The options of a relay, set on {@link OutboxRelay.Builder} (its only subclass), each checked
 * where it is set; the setters return that builder. A class of its own so that the relay's façade
 * and its options each read as one thing.
 *
 * @param <B> the builder the setters return
 */
public abstract class RelayOptions<B extends RelayOptions<B>> extends TableOptions<B> {
  /** Longest delay honoured when a transport asks for one (e.g. a Retry-After header). */
  private static final Duration MAX_RETRY_AFTER = Duration.ofHours(24);

  private final DataSource dataSource;
  private final Transport transport;
  private String name = "outbox-relay";
  private int batchSize = OutboxRelay.DEFAULT_BATCH_SIZE;
  private Duration pollInterval = OutboxRelay.DEFAULT_POLL_INTERVAL;
  private Duration leaseDuration = OutboxRelay.DEFAULT_LEASE_DURATION;
  private Duration sendTimeout = OutboxRelay.DEFAULT_SEND_TIMEOUT;
  private Duration statementTimeout; // null: the default, fitted to the lease
  private int maxAttempts = OutboxRelay.DEFAULT_MAX_ATTEMPTS;
  private Duration retryInitial = OutboxRelay.DEFAULT_RETRY_INITIAL;
  private Duration retryMax = OutboxRelay.DEFAULT_RETRY_MAX;
  private Duration outageInitial = OutboxRelay.DEFAULT_OUTAGE_INITIAL;
  private Duration outageMax = OutboxRelay.DEFAULT_OUTAGE_MAX;
  private Duration shutdownTimeout = OutboxRelay.DEFAULT_SHUTDOWN_TIMEOUT;
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
  private int retentionRestPerWork = RelayEngine.RETENTION_REST_PER_WORK;
  private ThreadFactory threadFactory;

  RelayOptions(DataSource dataSource, Transport transport) {
    super(TableName.DEFAULT);
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
  public B name(String name) {
    this.name = OutboxConfigurationException.checkName(name);
    return self();
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
  public B batchSize(int batchSize) {
    if (batchSize < 1 || batchSize > OutboxRelay.MAX_BATCH_SIZE) {
      throw new OutboxConfigurationException(
          "batchSize must be between 1 and " + OutboxRelay.MAX_BATCH_SIZE + ", was " + batchSize);
    }
    this.batchSize = batchSize;
    return self();
  }

  /**
   * Longest pause between polls while the table is idle. After a full batch the relay claims again
   * at once; after an empty one it waits 5 ms, doubling up to this interval.
   *
   * @param pollInterval the longest idle pause, positive; default {@link
   *     OutboxRelay#DEFAULT_POLL_INTERVAL}
   * @return this builder
   */
  public B pollInterval(Duration pollInterval) {
    this.pollInterval = positive("pollInterval", pollInterval);
    return self();
  }

  /**
   * How long a claim holds its events. If the relay dies, its events wait this long before another
   * relay takes them. Must exceed {@link #sendTimeout}.
   *
   * @param leaseDuration the lease, positive; default {@link OutboxRelay#DEFAULT_LEASE_DURATION}
   * @return this builder
   */
  public B leaseDuration(Duration leaseDuration) {
    this.leaseDuration = positive("leaseDuration", leaseDuration);
    return self();
  }

  /**
   * Sets the longest time the transport may take for one batch; then it is handed back and retried.
   * Shorter than the lease, so a slow send cannot outlive its claim.
   *
   * @param sendTimeout the bound, positive; default {@link OutboxRelay#DEFAULT_SEND_TIMEOUT}
   * @return this builder
   */
  public B sendTimeout(Duration sendTimeout) {
    this.sendTimeout = positive("sendTimeout", sendTimeout);
    return self();
  }

  /**
   * Bounds the time of every database statement the relay runs, and of the idle time inside its
   * short transactions, on every supported database: on the server (PostgreSQL {@code
   * statement_timeout}, {@code lock_timeout} and {@code idle_in_transaction_session_timeout}; MySQL
   * and MariaDB {@code wait_timeout}, {@code innodb_lock_wait_timeout}, and {@code
   * max_execution_time} or {@code max_statement_time}; each for the relay's own transactions only,
   * the connection goes back to the pool as it came) and on the client ({@link
   * java.sql.Connection#setNetworkTimeout}, one second longer). So a relay whose network path to
   * the database dies mid-claim (no FIN, no RST) does not hold the claimed rows for hours: the
   * server ends the stalled transaction after this time and another relay takes the rows; the
   * stalled relay gives up its connection one second later and never reuses it.
   *
   * @param statementTimeout the bound, positive; {@code sendTimeout} plus this must stay below
   *     {@code leaseDuration}; default {@link OutboxRelay#DEFAULT_STATEMENT_TIMEOUT}, or less when
   *     the lease leaves less room
   * @return this builder
   */
  public B statementTimeout(Duration statementTimeout) {
    this.statementTimeout = checkedStatementTimeout(statementTimeout);
    return self();
  }

  /** The statement timeout set, or the default fitted into what the lease leaves. */
  Duration effectiveStatementTimeout() {
    if (statementTimeout != null) {
      return statementTimeout;
    }
    Duration room = leaseDuration.minus(sendTimeout).dividedBy(2);
    return room.compareTo(OutboxRelay.DEFAULT_STATEMENT_TIMEOUT) < 0
        ? room
        : OutboxRelay.DEFAULT_STATEMENT_TIMEOUT;
  }

  /**
   * Sets the attempts before an event that keeps failing event-specifically becomes DEAD. Only the
   * event's own failures are charged: not a transport outage ({@code unavailable}), not a send cut
   * off by {@code sendTimeout}, not a batch handed back at shutdown, and not a lease that ran out
   * on a relay that died or stalled (counted apart, see {@link
   * OutboxRelay#LEASE_LOSSES_BEFORE_DEAD}).
   *
   * @param maxAttempts at least 1; default {@value OutboxRelay#DEFAULT_MAX_ATTEMPTS}
   * @return this builder
   */
  public B maxAttempts(int maxAttempts) {
    if (maxAttempts < 1) {
      throw new OutboxConfigurationException("maxAttempts must be at least 1, was " + maxAttempts);
    }
    this.maxAttempts = maxAttempts;
    return self();
  }

  /**
   * Retry delays: after the n-th failed attempt an event waits a uniformly random time up to {@code
   * min(max, initial * 2^(n-1))} (exponential backoff with full jitter). The jitter spreads the
   * retries of a failed batch, so they do not return together.
   *
   * @param initial cap of the first delay, positive; default {@link
   *     OutboxRelay#DEFAULT_RETRY_INITIAL}
   * @param max largest delay, not below {@code initial}; default {@link
   *     OutboxRelay#DEFAULT_RETRY_MAX}
   * @return this builder
   */
  public B retryBackoff(Duration initial, Duration max) {
    this.retryInitial = positive("retryBackoff initial", initial);
    this.retryMax = positive("retryBackoff max", max);
    return self();
  }

  /**
   * Pauses while the transport is unavailable: from {@code initial}, doubling up to {@code max};
   * after each pause one event probes the transport, so a broker that is down costs one probe per
   * pause instead of a failed batch per poll.
   *
   * @param initial first pause, positive; default {@link OutboxRelay#DEFAULT_OUTAGE_INITIAL}
   * @param max longest pause, not below {@code initial}; default {@link
   *     OutboxRelay#DEFAULT_OUTAGE_MAX}
   * @return this builder
   */
  public B outageBackoff(Duration initial, Duration max) {
    this.outageInitial = positive("outageBackoff initial", initial);
    this.outageMax = positive("outageBackoff max", max);
    return self();
  }

  /**
   * Ordered mode (default true): each aggregate's events are published one after another in append
   * order. A claim takes each aggregate's first unfinished event and the due events behind it (an
   * even share of the batch per aggregate); the relay sends such a run in one call only to a
   * transport whose {@link Transport#keepsOrderWithinBatch()} is true, otherwise in waves of one
   * event per aggregate. Unordered mode claims any available event, for the most parallelism.
   *
   * @param ordered false when consumers do not depend on per-aggregate order
   * @return this builder
   */
  public B ordered(boolean ordered) {
    this.ordered = ordered;
    return self();
  }

  /**
   * Deletes delivered events instead of keeping them as PUBLISHED (default false): no purge job is
   * needed, at the cost of the record of what went out and when.
   *
   * @param deleteOnPublish true to delete on acknowledgement
   * @return this builder
   */
  public B deleteOnPublish(boolean deleteOnPublish) {
    this.deleteOnPublish = deleteOnPublish;
    return self();
  }

  /**
   * PostgreSQL only (default false): also wake up when PostgreSQL notifies that events were
   * appended, for low latency without a short poll interval and without calling {@link
   * OutboxRelay#wakeUp()}. Needs the trigger from {@link OutboxSchema#createNotifyTrigger} and
   * holds one connection of the data source while the relay runs. Off by default because notifying
   * transactions commit one at a time, which costs append throughput under many concurrent writers
   * (measured in the benchmarks); polling stays on as the safety net.
   *
   * @param listen true to listen for the trigger's notifications
   * @return this builder
   */
  public B listenForNotifications(boolean listen) {
    this.listenForNotifications = listen;
    return self();
  }

  /**
   * Sends each event of a batch in its own transport call (default false), with the event's
   * identifiers in the MDC ({@link OutboxMdc}) during the call. Costs nothing with a transport that
   * implements only {@code Transport.send} (its {@code sendBatch} sends one at a time anyway) and
   * lets its log lines carry the event; costs throughput with a transport that pipelines batches
   * (Kafka, JMS, webhooks), whose batches then shrink to one event.
   *
   * @param sendIndividually true to call the transport once per event
   * @return this builder
   */
  public B sendIndividually(boolean sendIndividually) {
    this.sendIndividually = sendIndividually;
    return self();
  }

  /**
   * Receives the relay's events, for metrics; see {@link RelayListener}.
   *
   * @param listener called on the relay's thread; keep it fast and non-blocking (what it throws is
   *     logged and ignored)
   * @return this builder
   */
  public B listener(RelayListener listener) {
    this.listener = OutboxConfigurationException.requireNonNull(listener, "listener");
    return self();
  }

  /**
   * Whether {@link OutboxRelay#start()} first checks that the table exists with every column this
   * version needs, and that a named dialect is the database's (default true). Turn it off only when
   * the table is created after the relay starts; the relay then says DOWN in {@link
   * OutboxRelay#health()}, naming the missing table, until it exists.
   *
   * @param check false to skip the check
   * @return this builder
   */
  public B checkTableAtStart(boolean check) {
    this.checkTableAtStart = check;
    return self();
  }

  /**
   * Sets the clock for the relay's own scheduling and lag figures (leases use the database's), so
   * tests can move time instead of sleeping.
   *
   * @param clock the clock; default the UTC system clock
   * @return this builder
   */
  public B clock(Clock clock) {
    this.clock = OutboxConfigurationException.requireNonNull(clock, "clock");
    return self();
  }

  /**
   * Sets how long {@link OutboxRelay#close()} waits for the batch in flight before interrupting it;
   * keep it below the time your platform gives the application to stop.
   *
   * @param shutdownTimeout the bound, positive; default {@link
   *     OutboxRelay#DEFAULT_SHUTDOWN_TIMEOUT}
   * @return this builder
   */
  public B shutdownTimeout(Duration shutdownTimeout) {
    this.shutdownTimeout = positive("shutdownTimeout", shutdownTimeout);
    return self();
  }

  /**
   * Takes every thread the relay starts from this factory: the background worker of {@link
   * OutboxRelay#start()}, the notification listener, and the threads that run transport calls under
   * {@code sendTimeout} — also for {@link OutboxRelay#runOnce()} and {@link OutboxRelay#drain()},
   * which claim and acknowledge on the calling thread but send on one of these, so a transport that
   * hangs cannot hold the caller past the timeout. In a Java EE or Jakarta EE container pass the
   * container's {@code ManagedThreadFactory} (e.g. looked up at {@code
   * java:comp/DefaultManagedThreadFactory}); to drive the relay from the container's own scheduler
   * (an EJB {@code @Schedule} method calling {@code drain()}), do not call {@code start()} at all.
   * {@link OutboxRelay#close()} stops and leaves no thread behind either way.
   *
   * @param threadFactory the factory; default: daemon threads named {@code
   *     outboxkit-<name>-<role>-<n>}
   * @return this builder
   */
  public B threadFactory(ThreadFactory threadFactory) {
    this.threadFactory =
        OutboxConfigurationException.requireNonNull(threadFactory, "threadFactory");
    return self();
  }

  /**
   * Purges finished rows in the background while the relay runs (default: off, rows are kept until
   * {@link OutboxAdmin#purgeFinished} or your own job deletes them): finished (PUBLISHED, EXPIRED,
   * CANCELLED, SUPERSEDED) rows that finished longer ago than the retention. A thread of the
   * relay's (from the {@link #threadFactory}) walks the table's primary key every tenth of the
   * shortest retention configured here (at least every second, at most every 5 minutes), in short
   * transactions that each read {@link OutboxAdmin#DEFAULT_PURGE_BATCH_SIZE} rows and lock only
   * those they delete, so claims, acknowledgements and appends are not held up. It runs only after
   * {@link OutboxRelay#start()}; several relays on one table may all have it (they only repeat each
   * other's reads). Each pass is reported to {@link RelayListener#purged}.
   *
   * @param retention how long finished rows are kept, e.g. for audits or to answer "was it sent?";
   *     positive
   * @return this builder
   */
  public B retention(Duration retention) {
    this.finishedRetention = positive("retention", retention);
    return self();
  }

  /**
   * Also purges DEAD rows quarantined longer ago than this (default: DEAD rows are kept until
   * replayed or discarded, see {@link OutboxAdmin}). Runs on the retention thread of {@link
   * #retention(Duration)}, which this starts too. In ordered mode a DEAD row holds back the rest of
   * its aggregate; purging it lets the aggregate move on, as {@link OutboxAdmin#discard} would.
   *
   * @param retention how long DEAD rows are kept for inspection and replay; positive
   * @return this builder
   */
  public B deadRetention(Duration retention) {
    this.deadRetention = positive("deadRetention", retention);
    return self();
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
  public B inboxRetention(Inbox inbox, Duration retention) {
    this.inbox = OutboxConfigurationException.requireNonNull(inbox, "inbox");
    this.inboxRetention = positive("inboxRetention", retention);
    return self();
  }

  /** The relay's policy values, as the engine's parts read them. */
  RelaySettings settings() {
    return new RelaySettings(
        name,
        batchSize,
        ordered,
        leaseDuration,
        sendTimeout,
        maxAttempts,
        OutboxRelay.LEASE_LOSSES_BEFORE_DEAD,
        deleteOnPublish,
        MAX_RETRY_AFTER,
        sendIndividually,
        clock);
  }

  /** What the engine is made of besides its settings. */
  RelayEngine.Parts parts() {
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
    p.finishedRetention = finishedRetention;
    p.deadRetention = deadRetention;
    if (inbox != null) {
      Inbox in = inbox;
      Duration inRetention = inboxRetention;
      p.inboxPurge = () -> in.purgeOlderThan(dataSource, inRetention);
      p.inboxRetention = inboxRetention;
    }
    p.retentionInterval = retentionInterval;
    p.retentionWindow = OutboxAdmin.DEFAULT_PURGE_BATCH_SIZE;
    p.retentionRestPerWork = retentionRestPerWork;
    return p;
  }

  /** Time between retention passes instead of the one derived from the retentions: tests. */
  B retentionInterval(Duration interval) {
    this.retentionInterval = positive("retentionInterval", interval);
    return self();
  }

  /**
   * How long retention rests after each window, in multiples of the window's time, instead of
   * {@link RelayEngine#RETENTION_REST_PER_WORK}: tests that purge a large table at full speed.
   */
  B retentionRestPerWork(int restPerWork) {
    this.retentionRestPerWork = restPerWork;
    return self();
  }

  /** Source of jitter; fixed seeds make tests repeatable. */
  B random(Random random) {
    this.random = OutboxConfigurationException.requireNonNull(random, "random");
    return self();
  }

  /**
   * Checks the options against each other, when the relay is built.
   *
   * @throws OutboxConfigurationException if they contradict each other
   */
  void checkConsistent() {
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
          "outageBackoff initial (" + outageInitial + ") must not exceed max (" + outageMax + ")");
    }
  }

  private static Duration positive(String option, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new OutboxConfigurationException(option + " must be positive, was " + value);
    }
    return value;
  }
}
