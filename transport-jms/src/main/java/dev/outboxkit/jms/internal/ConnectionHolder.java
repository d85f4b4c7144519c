package dev.outboxkit.jms.internal;

import dev.outboxkit.jms.JmsDestination;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.ExceptionListener;
import jakarta.jms.JMSException;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport's one JMS connection: created lazily, shared by all senders, discarded when it
 * fails, and created again by the next send.
 *
 * <p>Sessions are never shared between threads (the JMS rule): each send borrows a session of its
 * own from a small pool of idle ones and gives it back when done, or closes it when anything went
 * wrong with it. A session and its anonymous producer are reused because creating them costs round
 * trips to the broker with most providers.
 *
 * <p>Nothing here may block a sender without bound. Connecting runs on a helper thread, and a
 * sender waits for it only until its own deadline (a failover URL, for instance, can block in
 * {@code createConnection} for as long as the broker is down); a later sender picks up the same
 * attempt. Closing a connection also runs on a helper thread, because a provider may block in
 * {@code close()} trying to tell a dead broker goodbye.
 */
public final class ConnectionHolder {
  private static final Logger log = LoggerFactory.getLogger(ConnectionHolder.class);

  /** Idle sessions kept per connection; more concurrent senders than this create extra ones. */
  private static final int MAX_IDLE_SESSIONS = 16;

  /** Destination objects cached per session, by {@link JmsDestination}. */
  private static final int MAX_CACHED_DESTINATIONS = 256;

  private final String name;
  private final ConnectionFactory factory;
  private final String user;
  private final String password;
  private final ExecutorService helper;
  private final ReentrantLock connectLock = new ReentrantLock();
  private final AtomicReference<Link> current = new AtomicReference<>();
  private final AtomicReference<Future<Link>> pending = new AtomicReference<>();
  private final AtomicLong connections = new AtomicLong();
  private volatile boolean closed;
  // Log the first failed connection attempt of an outage at WARN, the rest at DEBUG.
  private volatile boolean connectFailing;

  /**
   * @param name for log lines and thread names
   * @param factory the provider's connection factory
   * @param user user name, or null to call {@code createConnection()} without credentials
   * @param password password (may be null with a user name)
   * @param threads where the helper threads come from (connecting, closing)
   */
  public ConnectionHolder(
      String name, ConnectionFactory factory, String user, String password, ThreadFactory threads) {
    this.name = name;
    this.factory = factory;
    this.user = user;
    this.password = password;
    this.helper = Executors.newCachedThreadPool(threads);
  }

  /**
   * The connection to send on, connecting first if there is none.
   *
   * @param deadlineNanos {@link System#nanoTime()} by which to give up
   * @return a connection not known to have failed
   * @throws JMSException if the provider refused to connect
   * @throws TimeoutException if connecting took past the deadline (the attempt goes on in the
   *     background and a later call may use its result)
   * @throws InterruptedException if interrupted while waiting
   * @throws java.lang.IllegalStateException if the holder is closed
   */
  public Link acquire(long deadlineNanos)
      throws JMSException, TimeoutException, InterruptedException {
    Link link = current.get();
    if (link != null && !link.broken()) {
      return link;
    }
    long left = deadlineNanos - System.nanoTime();
    if (!connectLock.tryLock(Math.max(0, left), TimeUnit.NANOSECONDS)) {
      throw new TimeoutException("another send is still connecting to the JMS provider");
    }
    try {
      link = current.get();
      if (link != null && !link.broken()) {
        return link;
      }
      checkOpen();
      Future<Link> attempt = pending.get();
      if (attempt == null) {
        attempt = helper.submit(this::connect);
        pending.set(attempt);
      }
      Link fresh;
      try {
        fresh = attempt.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (ExecutionException e) {
        pending.compareAndSet(attempt, null);
        Throwable cause = e.getCause();
        noteConnectFailure(cause);
        if (cause instanceof JMSException) {
          throw (JMSException) cause;
        }
        if (cause instanceof RuntimeException) {
          throw (RuntimeException) cause;
        }
        throw new IllegalStateException("connecting failed: " + cause, cause);
      }
      pending.compareAndSet(attempt, null);
      if (closed) {
        closeAsync(fresh.connection);
        checkOpen();
      }
      current.set(fresh);
      if (connectFailing) {
        connectFailing = false;
        log.info("[{}] connected to the JMS provider again (connection #{})", name, fresh.id);
      } else {
        log.info("[{}] connected to the JMS provider (connection #{})", name, fresh.id);
      }
      return fresh;
    } finally {
      connectLock.unlock();
    }
  }

  private Link connect() throws JMSException {
    Connection connection =
        user == null ? factory.createConnection() : factory.createConnection(user, password);
    Link link = new Link(connection, connections.incrementAndGet());
    try {
      connection.setExceptionListener(link);
    } catch (JMSException | RuntimeException e) {
      // Java EE and Jakarta EE web and EJB containers forbid exception listeners; failures are
      // then found when a send fails, which works as well, only a send later.
      log.debug(
          "[{}] the JMS provider refused an exception listener ({}); lost connections are"
              + " detected by failed sends",
          name,
          Classifier.describe(e));
    }
    // No connection.start(): it only starts message delivery to consumers; producing needs none.
    if (closed) {
      closeAsync(connection);
      throw new IllegalStateException("JMS transport '" + name + "' is closed");
    }
    return link;
  }

  private void noteConnectFailure(Throwable cause) {
    if (!connectFailing) {
      connectFailing = true;
      log.warn(
          "[{}] cannot connect to the JMS provider: {}; retrying on later sends",
          name,
          Classifier.describe(cause));
    } else {
      log.debug("[{}] still cannot connect: {}", name, Classifier.describe(cause));
    }
  }

  /**
   * Gives up on a connection: later sends create a new one. Idempotent; the first call logs.
   *
   * @param link the connection that failed
   * @param reason why, log-safe
   */
  public void discard(Link link, String reason) {
    if (link.broken.compareAndSet(false, true)) {
      current.compareAndSet(link, null);
      if (!closed) {
        log.warn(
            "[{}] JMS connection #{} lost ({}); a new one is created on the next send",
            name,
            link.id,
            reason);
      }
      closeAsync(link.connection);
    }
  }

  /**
   * Tells whether a connection still works, after a failure the API does not explain. It opens a
   * session and creates and deletes a temporary queue on it: a round trip to the broker with every
   * provider (opening a session alone is not, with some). Only a probe failure that itself looks
   * like a lost connection counts against the connection: a provider that refuses temporary queues
   * (permissions) must not make every failure look like an outage.
   */
  public boolean probe(Link link) {
    if (link.broken()) {
      return false;
    }
    try {
      Session s = link.connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
      try {
        s.createTemporaryQueue().delete();
      } finally {
        s.close();
      }
      return true;
    } catch (JMSException | RuntimeException e) {
      return !link.broken() && Classifier.classify(e) != Classifier.Category.CONNECTION;
    }
  }

  /**
   * Closes the connection, waiting up to the timeout for the provider; then stops the helper
   * threads. Sends still running fail and report the transport unavailable. Idempotent.
   */
  public void close(Duration timeout) {
    if (closed) {
      return;
    }
    closed = true;
    Future<Link> attempt = pending.getAndSet(null);
    if (attempt != null && !attempt.cancel(true) && attempt.isDone()) {
      try {
        closeAsync(attempt.get().connection);
      } catch (ExecutionException | InterruptedException | RuntimeException e) {
        // the attempt failed: nothing to close
      }
    }
    Link link = current.getAndSet(null);
    if (link != null) {
      link.broken.set(true);
      Future<?> closing = submitClose(link.connection);
      if (closing != null) {
        try {
          closing.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
          log.warn(
              "[{}] the JMS provider did not close the connection within {}; abandoning it",
              name,
              timeout);
        } catch (ExecutionException e) {
          log.debug("[{}] closing the JMS connection failed", name, e.getCause());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
    helper.shutdown();
  }

  /** How many connections were created so far; a link whose id is higher is newer. */
  public long connectionsCreated() {
    return connections.get();
  }

  /** True once {@link #close} was called. */
  public boolean closed() {
    return closed;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("JMS transport '" + name + "' is closed");
    }
  }

  private void closeAsync(Connection connection) {
    submitClose(connection);
  }

  private Future<?> submitClose(Connection connection) {
    try {
      return helper.submit(
          () -> {
            try {
              connection.close();
            } catch (JMSException | RuntimeException e) {
              log.debug("[{}] closing a JMS connection failed: {}", name, Classifier.describe(e));
            }
          });
    } catch (RejectedExecutionException e) {
      return null; // shutting down: the connection goes with the JVM or the provider's cleanup
    }
  }

  /** One connection and the idle sessions on it. */
  public final class Link implements ExceptionListener {
    private final Connection connection;
    private final long id;
    private final AtomicBoolean broken = new AtomicBoolean();
    private final ConcurrentLinkedDeque<PooledSession> idle = new ConcurrentLinkedDeque<>();

    Link(Connection connection, long id) {
      this.connection = connection;
      this.id = id;
    }

    /** Sequence number of this connection, from 1. */
    public long id() {
      return id;
    }

    /** True once the connection failed or was given up. */
    public boolean broken() {
      return broken.get();
    }

    /**
     * Called by the provider on one of its threads when the connection fails, and, with some
     * providers (ActiveMQ, Qpid JMS), for any asynchronous error too, such as a message the broker
     * refused. So only a failure that looks like a lost connection discards it at once; for
     * anything else a helper thread checks the connection first (not this thread: a provider may
     * call it from the thread that reads the broker's answers).
     */
    @Override
    public void onException(JMSException exception) {
      String reason = Classifier.describe(exception);
      if (Classifier.classify(exception) == Classifier.Category.CONNECTION) {
        discard(this, reason);
        return;
      }
      log.debug("[{}] the JMS provider reported an asynchronous error: {}", name, reason);
      try {
        helper.execute(
            () -> {
              if (!broken() && !probe(this)) {
                discard(this, reason);
              }
            });
      } catch (RejectedExecutionException e) {
        // closing: the connection goes anyway
      }
    }

    /**
     * A transacted session for the calling thread alone: an idle one, or a new one.
     *
     * @throws JMSException if the connection cannot create a session
     */
    public PooledSession borrow() throws JMSException {
      PooledSession s = idle.pollFirst();
      if (s != null) {
        return s;
      }
      Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
      try {
        // Anonymous: one producer serves every destination, so nothing is created per event.
        MessageProducer producer = session.createProducer(null);
        producer.setDeliveryMode(DeliveryMode.PERSISTENT);
        return new PooledSession(session, producer);
      } catch (JMSException | RuntimeException e) {
        closeQuietly(session);
        throw e;
      }
    }

    /**
     * Returns a session after a send that left it usable (committed or rolled back); closes it
     * instead if the connection is gone or enough sessions are idle.
     */
    public void giveBack(PooledSession s) {
      if (!broken() && !closed && idle.size() < MAX_IDLE_SESSIONS) {
        idle.offerFirst(s);
      } else if (!broken()) {
        closeQuietly(s.session);
      }
      // On a broken connection, closing the connection closes its sessions.
    }

    /** Closes a session that is in an unknown state, so it is never reused. */
    public void abandon(PooledSession s) {
      if (!broken()) {
        closeQuietly(s.session);
      }
    }

    /**
     * Rolls back and closes a session on a helper thread, for a sender that must return now (it was
     * interrupted): both are round trips to the broker that a provider may wait for without regard
     * to interrupts, behind whatever keeps the broker busy. The sender never touches the session
     * again, so it is used by one thread at a time still.
     */
    public void abandonLater(PooledSession s) {
      if (broken()) {
        return; // closing the connection closes its sessions and ends their transactions
      }
      try {
        helper.execute(
            () -> {
              try {
                s.session.rollback();
              } catch (JMSException | RuntimeException e) {
                log.debug(
                    "[{}] rolling back an abandoned session failed: {}",
                    name,
                    Classifier.describe(e));
              }
              closeQuietly(s.session);
            });
      } catch (RejectedExecutionException e) {
        // closing: the connection goes, and its transactions with it
      }
    }

    private void closeQuietly(Session session) {
      try {
        session.close();
      } catch (JMSException | RuntimeException e) {
        log.debug("[{}] closing a JMS session failed: {}", name, Classifier.describe(e));
      }
    }
  }

  /** A session with its anonymous producer and the destinations it resolved. */
  public static final class PooledSession {
    private final Session session;
    private final MessageProducer producer;
    private final Map<JmsDestination, Destination> destinations =
        new LinkedHashMap<>(16, 0.75f, true) {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<JmsDestination, Destination> eldest) {
            return size() > MAX_CACHED_DESTINATIONS;
          }
        };

    PooledSession(Session session, MessageProducer producer) {
      this.session = session;
      this.producer = producer;
    }

    /** The session; used by one thread at a time. */
    public Session session() {
      return session;
    }

    /** The session's anonymous producer, in persistent delivery mode. */
    public MessageProducer producer() {
      return producer;
    }

    /**
     * The provider's destination object for a routing answer.
     *
     * @throws JMSException if the provider refuses the name
     */
    public Destination resolve(JmsDestination d) throws JMSException {
      if (d.destination().isPresent()) {
        return d.destination().get();
      }
      Destination resolved = destinations.get(d);
      if (resolved == null) {
        String n = d.name().orElseThrow();
        resolved =
            d.kind() == JmsDestination.Kind.TOPIC ? session.createTopic(n) : session.createQueue(n);
        destinations.put(d, resolved);
      }
      return resolved;
    }
  }
}
