package dev.outboxkit.jms;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import dev.outboxkit.internal.OwnedThreads;
import dev.outboxkit.internal.Routing;
import dev.outboxkit.internal.TransportGate;
import dev.outboxkit.jms.internal.BatchSender;
import dev.outboxkit.jms.internal.ConnectionHolder;
import dev.outboxkit.jms.internal.MessageFactory;
import jakarta.jms.ConnectionFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes outbox events to any JMS provider through the {@code jakarta.jms} API. Only the classic
 * API of JMS 1.1 is used (connection, session, producer; no {@code JMSContext}), so any provider of
 * that API works. Thread-safe; one instance can serve several relays.
 *
 * <pre>{@code
 * ConnectionFactory factory = (ConnectionFactory) new InitialContext().lookup("java:comp/env/jms/cf");
 * JmsTransport jms = JmsTransport.builder(factory)
 *     .destinationRouter(e -> e.aggregateType().equals("Order") ? JmsDestination.topic("orders") : null)
 *     .build();
 * OutboxRelay relay = OutboxRelay.builder(dataSource, jms).build();
 * }</pre>
 *
 * <h2>Connection</h2>
 *
 * <p>The transport opens one connection from the factory on the first send (with the {@link
 * Builder#credentials(String, String) credentials} if given), shares it between all sends, and
 * gives it up when it fails: when the provider reports a lost connection to the exception listener
 * (other asynchronous errors some providers report there are checked first), when a send fails in a
 * way that shows the connection is gone, or when the provider does not answer within the {@link
 * Builder#sendTimeout(Duration) send timeout}. The next send connects again, so the transport
 * recovers from a broker restart by itself; a send that finds its connection dead before anything
 * was committed on it connects again at once, within the same call. Each send works on a transacted
 * session of its own (sessions are never shared between threads), taken from a small pool of idle
 * ones. The transport never calls {@code start()} (only consumers need it) or {@code setClientID}.
 *
 * <p>Java EE and Jakarta EE: a factory looked up from JNDI in a servlet container works as it is.
 * In web and EJB containers the exception listener is not allowed; the transport then finds a lost
 * connection when a send on it fails. The relay's threads are not container threads and run no JTA
 * transaction, so give it a factory whose sessions are transacted locally (not an XA-only one).
 *
 * <p>A send never waits without bound: connecting runs on a helper thread that the send waits for
 * only until the send timeout, and a send still blocked in the provider at the send timeout is
 * interrupted and its connection closed (the one JMS call allowed from another thread), which makes
 * the blocked call fail; the batch is then reported unavailable. Failover URLs: a provider's own
 * reconnect logic can block for as long as the broker is down (ActiveMQ Classic's {@code failover:}
 * transport does, unless it has a timeout), and a provider that ignores both interrupt and close
 * keeps the thread until it returns. Prefer a plain URL (the transport reconnects by itself), or
 * bound the provider, e.g. {@code failover:(tcp://a:61616,tcp://b:61616)?timeout=5000}.
 *
 * <h2>Messages</h2>
 *
 * <p>{@code BytesMessage} with the payload (or {@code TextMessage} for textual content types, see
 * {@link Builder#textMessages(boolean)}), {@code DeliveryMode.PERSISTENT}, default priority, {@code
 * JMSCorrelationID} = the event's {@code correlation-id} header if it has one, else the event id;
 * {@code JMSXGroupID} = aggregate id; event id, type, aggregate type and id, schema version,
 * content type, occurred-at, tenant and the user headers as properties. Names and the header-name
 * mapping are listed in {@link JmsEvents}. An event with an {@code expiresAt} is sent with a
 * time-to-live up to that instant (measured by this host's clock), so the provider drops it if it
 * is not consumed in time.
 *
 * <h2>Destinations</h2>
 *
 * <p>The {@link Builder#destinationRouter(Function) destination router}'s answer if it gives one;
 * else the queue named by the event's {@link OutboxEvent#destination() destination}; else the queue
 * {@value #DEFAULT_QUEUE_PREFIX} followed by the aggregate type, e.g. {@code outbox.Order}. The
 * router sees every event, also those with a destination, because only it can say whether a name is
 * a queue or a topic, or supply a {@code Destination} object.
 *
 * <h2>Batches</h2>
 *
 * <p>{@link #sendBatch} sends the batch in order in one local JMS transaction and commits once:
 * consumers see all of it or none of it, and an event is reported delivered only after the commit
 * returned. If one event fails inside the transaction, the transaction is rolled back and the rest
 * is sent again at once in a new one, without the failed event and without the later events of its
 * aggregate (which come back as retry, so they cannot overtake it). If the commit itself fails
 * because the connection broke, the outcome is unknown: the batch is sent again (at once on a new
 * connection if the old one had died before this call, else later by the relay after it was
 * reported unavailable), so consumers may see it twice; deduplicate on {@link JmsEvents#eventId}.
 *
 * <p>If the provider refuses the commit but the connection is fine, it does not say which message
 * it objected to (ActiveMQ Classic sends a transaction's messages asynchronously and, when the
 * broker refuses one of them, fails the whole commit). The batch's events are then sent again at
 * once, one per transaction, so only the event at fault is retried.
 *
 * <p>Interrupts: when the thread in {@link #sendBatch} is interrupted (a relay that gave up on the
 * batch, or is stopping), the transport checks the flag before every message, session and commit
 * and sends nothing more; a provider call the interrupt cuts short ends the batch too. It returns
 * at once with the interrupt flag set, also when the provider cleared it (ActiveMQ Classic's
 * producer flow control does, and says so only in the exception's message). An event counts as
 * confirmed only when its transaction committed, so events of an uncommitted transaction are
 * unavailable, "not confirmed: interrupted before the JMS transaction committed", and the
 * transaction is rolled back on a helper thread (the rollback, and closing the session, are round
 * trips a provider may wait for regardless of the interrupt, behind the very send that was stuck).
 * In the usual batch of one transaction that means every event; after a refused commit (one event
 * per transaction) the events committed before the interrupt stay delivered. An interrupt during
 * the commit itself leaves its outcome unknown: the events are unavailable and may arrive twice.
 * ActiveMQ Classic also gives up a connection whose request wait was interrupted; the transport
 * then connects again on the next send.
 *
 * <h2>Failures</h2>
 *
 * <p>A transport is one connection factory, so its outages (no connection, provider out of
 * resources, no answer in time) are the whole transport's: {@code unavailable} without a {@link
 * dev.outboxkit.SendResult#scope() scope}, which pauses the relay and costs one probe per pause. To
 * publish to several brokers, give each its own relay and transport.
 *
 * <table>
 *   <caption>How JMS failures map to results</caption>
 *   <tr><th>failure</th><th>result</th></tr>
 *   <tr><td>cannot connect (any exception from {@code createConnection}, or no connection within
 *       the send timeout)</td><td>unavailable, for the whole batch</td></tr>
 *   <tr><td>connection lost: the exception listener fired; {@code jakarta.jms.IllegalStateException}
 *       (closed connection or session); an {@code IOException} such as {@code ConnectException}
 *       in the cause chain; a provider exception named {@code ConnectionFailed...} or
 *       {@code ConnectionClosed...}; or any other failure after which the connection fails a
 *       check (a new session creating and deleting a temporary queue) with such a failure</td>
 *       <td>unavailable for every event not yet delivered; the connection is discarded and the
 *       next send connects again</td></tr>
 *   <tr><td>no answer within the send timeout</td><td>unavailable; the sending thread is
 *       interrupted and the connection closed and discarded</td></tr>
 *   <tr><td>{@code ResourceAllocationException} (provider out of memory or storage)</td>
 *       <td>unavailable (not the events' fault; nothing charged)</td></tr>
 *   <tr><td>the calling thread is interrupted (the relay gave up on the batch or is
 *       stopping)</td><td>events whose transaction committed before stay delivered (in the usual
 *       one-transaction batch: none); every other event is unavailable, "not confirmed: interrupted
 *       …" (no attempt charged). Nothing more is sent or committed; the call returns at once,
 *       interrupt flag set</td></tr>
 *   <tr><td>{@code MessageFormatException}, {@code InvalidDestinationException}, a user header
 *       mapping to a reserved property name</td><td>reject that event, with the reason; every
 *       event for an invalid destination in the batch gets the same answer</td></tr>
 *   <tr><td>the destination router throws</td><td>retry that event</td></tr>
 *   <tr><td>any other {@code JMSException} while sending one event</td><td>retry that event; the
 *       rest of the batch is sent in a new transaction (once; a second unexplained failure in the
 *       same call sends the rest back as retry)</td></tr>
 *   <tr><td>commit refused without losing the connection (e.g. {@code
 *       TransactionRolledBackException})</td><td>the events are sent again one per transaction;
 *       an event whose own commit is refused is retried</td></tr>
 * </table>
 *
 * <p>Events after a failed one in the same aggregate come back as retry with a reason naming it.
 */
public final class JmsTransport implements Transport {
  private static final Logger log = LoggerFactory.getLogger(JmsTransport.class);

  /** Prefix of the default queue, followed by the aggregate type: {@value}. */
  public static final String DEFAULT_QUEUE_PREFIX = "outbox.";

  /** Name used in log lines and thread names unless set: {@value}. */
  public static final String DEFAULT_NAME = "jms";

  /**
   * Bound of one send or batch, connecting included: 20 seconds, below the relay's default send
   * timeout (30 s), so the transport gives up, closes a hung connection and reports the batch
   * unavailable before the relay abandons it.
   */
  public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofSeconds(20);

  /** How long {@link #close()} waits for the provider to close the connection: 10 seconds. */
  public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(10);

  private final String name;
  private final Function<OutboxEvent, JmsDestination> destinationRouter;
  private final ConnectionHolder connection;
  private final ScheduledThreadPoolExecutor watchdog;
  private final OwnedThreads threads;
  private final BatchSender sender;
  private final Duration sendTimeout;
  private final Duration closeTimeout;
  private final boolean textMessages;
  private final TransportGate gate;

  private JmsTransport(Builder b) {
    this.name = b.name;
    this.gate = new TransportGate("JMS transport '" + name + "'");
    this.destinationRouter = b.destinationRouter;
    this.sendTimeout = b.sendTimeout;
    this.closeTimeout = b.closeTimeout;
    this.textMessages = b.textMessages;
    this.threads =
        new OwnedThreads(b.threadFactory, "outboxkit-jms-" + b.name + "-", "the JMS transport");
    this.connection =
        new ConnectionHolder(b.name, b.factory, b.user, b.password, threads.factory("helper"));
    this.watchdog = new ScheduledThreadPoolExecutor(1, threads.factory("watchdog"));
    // Nearly every guard is cancelled long before it is due: drop them from the queue at once.
    watchdog.setRemoveOnCancelPolicy(true);
    this.sender =
        new BatchSender(
            name,
            connection,
            this::destinationOf,
            new MessageFactory(b.textMessages, Clock.systemUTC()),
            sendTimeout,
            watchdog);
  }

  /**
   * Starts configuring a transport.
   *
   * @param factory the provider's connection factory, e.g. looked up from JNDI; the transport
   *     creates its connection from it on the first send
   * @return a builder
   */
  public static Builder builder(ConnectionFactory factory) {
    OutboxConfigurationException.requireNonNull(factory, "connectionFactory");
    return new Builder(factory);
  }

  /**
   * Sends one event in its own transaction and returns once it is committed, within the send
   * timeout. After {@link #close()} it answers unavailable.
   */
  @Override
  public SendResult send(OutboxMessage message) {
    return gate.sendOne(message, this::sendBatch);
  }

  /**
   * Sends the batch in one transaction, in order, within the send timeout. If the calling thread is
   * interrupted, nothing more is sent or committed and the call returns at once with the interrupt
   * flag set: committed events are delivered, the others unavailable. See the class comment for
   * order, interrupts and failure handling.
   *
   * <p>After {@link #close()} every message is answered {@link SendResult#unavailable(String)}, as
   * by every OutboxKit transport: the relay holds such events back uncharged.
   */
  @Override
  public List<SendResult> sendBatch(List<OutboxMessage> batch) {
    return gate.send(batch, sender::send);
  }

  /**
   * True: a batch is sent in order on one session; when an event fails, the aggregate's later
   * events of the batch are left out of the transaction sent again without it.
   */
  @Override
  public boolean keepsOrderWithinBatch() {
    return true;
  }

  /**
   * The destination an event goes to: the router's answer, else the queue named by the event's
   * destination, else the queue {@value #DEFAULT_QUEUE_PREFIX} + aggregate type.
   *
   * @param event any event
   * @return where it is sent
   * @throws RuntimeException whatever the router throws
   */
  public JmsDestination destinationOf(OutboxEvent event) {
    return Routing.route(event, destinationRouter, DEFAULT_QUEUE_PREFIX, JmsDestination::queue);
  }

  /**
   * Closes the connection (waiting up to the close timeout for the provider) and stops the
   * transport's threads. Sends still running report their events unavailable. Idempotent.
   */
  @Override
  public void close() {
    if (gate.close()) {
      connection.close(closeTimeout);
      watchdog.shutdownNow();
      try {
        // A container counts threads on undeploy; one stuck in the provider is left behind.
        threads.awaitEnded(Duration.ofSeconds(1));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      log.info("[{}] JMS transport closed", name);
    }
  }

  /** Names the transport and its settings, without credentials. */
  @Override
  public String toString() {
    return "JmsTransport["
        + name
        + ", sendTimeout="
        + sendTimeout
        + ", textMessages="
        + textMessages
        + "]";
  }

  /** Configures a {@link JmsTransport}; every option is checked where it is set. */
  public static final class Builder {
    private final ConnectionFactory factory;
    private String name = DEFAULT_NAME;
    private Function<OutboxEvent, JmsDestination> destinationRouter;
    private boolean textMessages;
    private String user;
    private String password;
    private Duration sendTimeout = DEFAULT_SEND_TIMEOUT;
    private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;
    private ThreadFactory threadFactory;

    private Builder(ConnectionFactory factory) {
      this.factory = factory;
    }

    /**
     * Takes every thread the transport starts from this factory: the watchdog that bounds each send
     * by {@code sendTimeout} and the helpers that connect and close off the caller's thread. In a
     * Java EE or Jakarta EE container pass the container's {@code ManagedThreadFactory}. (Threads
     * the JMS provider's client starts for itself are the provider's.)
     *
     * @param threadFactory the factory; default: daemon threads named {@code
     *     outboxkit-jms-<name>-…}
     * @return this builder
     */
    public Builder threadFactory(ThreadFactory threadFactory) {
      if (threadFactory == null) {
        throw new OutboxConfigurationException("threadFactory must not be null");
      }
      this.threadFactory = threadFactory;
      return this;
    }

    /**
     * Names the transport in log lines and thread names, e.g. after the broker it writes to, so an
     * application with several transports can tell their logs apart.
     *
     * @param name {@value OutboxConfigurationException#NAME_RULE}; default {@value #DEFAULT_NAME}
     * @return this builder
     */
    public Builder name(String name) {
      this.name = OutboxConfigurationException.checkName(name);
      return this;
    }

    /**
     * Chooses where events go. Called for every event (also those with a destination), on the
     * relay's thread, once per event and attempt; may return null to fall back to the default rule
     * (the event's destination as a queue name, else {@value #DEFAULT_QUEUE_PREFIX} + aggregate
     * type). If it throws, the event is retried.
     *
     * @param destinationRouter the routing function
     * @return this builder
     */
    public Builder destinationRouter(Function<OutboxEvent, JmsDestination> destinationRouter) {
      this.destinationRouter =
          OutboxConfigurationException.requireNonNull(destinationRouter, "destinationRouter");
      return this;
    }

    /**
     * Sends textual payloads as {@code TextMessage} instead of {@code BytesMessage} (default
     * false). Textual: {@code text/*}, {@code application/json}, {@code application/xml}, {@code
     * application/yaml}, {@code application/javascript} and the {@code +json} and {@code +xml}
     * types, decoded in the {@code charset} parameter (UTF-8 unless given). A payload that is not
     * valid in its charset, or names an unknown one, is sent as a {@code BytesMessage}, so no byte
     * is ever altered. {@link JmsEvents#payload} reads both kinds back as bytes.
     *
     * @param textMessages true to send textual payloads as {@code TextMessage}, for consumers that
     *     only read text
     * @return this builder
     */
    public Builder textMessages(boolean textMessages) {
      this.textMessages = textMessages;
      return this;
    }

    /**
     * Connects with {@code createConnection(user, password)} instead of {@code createConnection()}.
     * The password is never logged.
     *
     * @param user the user name, not blank
     * @param password the password; may be null or empty if the provider allows it
     * @return this builder
     */
    public Builder credentials(String user, String password) {
      if (user == null || user.isBlank()) {
        throw new OutboxConfigurationException("credentials user must not be blank");
      }
      this.user = user;
      this.password = password;
      return this;
    }

    /**
     * Bound of one send or batch, connecting included. Past it, the sending thread is interrupted
     * and the connection closed (which makes a hung provider call fail), and the batch is reported
     * unavailable. Keep it below the relay's send timeout, so that the transport, not the relay,
     * ends a hung call. Default {@link #DEFAULT_SEND_TIMEOUT}.
     *
     * @param sendTimeout the bound, positive
     * @return this builder
     */
    public Builder sendTimeout(Duration sendTimeout) {
      this.sendTimeout = positive("sendTimeout", sendTimeout);
      return this;
    }

    /**
     * How long {@link JmsTransport#close()} waits for the provider to close the connection. Default
     * {@link #DEFAULT_CLOSE_TIMEOUT}.
     *
     * @param closeTimeout the bound, positive
     * @return this builder
     */
    public Builder closeTimeout(Duration closeTimeout) {
      this.closeTimeout = positive("closeTimeout", closeTimeout);
      return this;
    }

    /**
     * Builds the transport. It does not connect yet: the connection is created on the first send,
     * so an application can start while its broker is still down.
     *
     * @return the transport, to hand to the relay
     */
    public JmsTransport build() {
      JmsTransport transport = new JmsTransport(this);
      log.info(
          "[{}] JMS transport: factory={}, {}, sendTimeout={}, closeTimeout={}, messages={},"
              + " destinations: {}, else the event's destination as a queue, else queue '{}' +"
              + " aggregate type; persistent, one transaction per batch",
          name,
          factory.getClass().getName(),
          user == null ? "no credentials" : "user '" + user + "'",
          sendTimeout,
          closeTimeout,
          textMessages
              ? "TextMessage for textual content types, else BytesMessage"
              : "BytesMessage",
          destinationRouter == null ? "(no router)" : "the destination router",
          DEFAULT_QUEUE_PREFIX);
      return transport;
    }

    private static Duration positive(String option, Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new OutboxConfigurationException(option + " must be positive, was " + value);
      }
      return value;
    }
  }
}
