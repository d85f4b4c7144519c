package dev.outboxkit.jms.internal;

import dev.outboxkit.Failures;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.internal.BatchTally;
import dev.outboxkit.jms.JmsDestination;
import dev.outboxkit.jms.internal.Classifier.Category;
import dev.outboxkit.jms.internal.ConnectionHolder.Link;
import dev.outboxkit.jms.internal.ConnectionHolder.PooledSession;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a batch in one JMS transaction: route and build each message, send them in order on one
 * transacted session, commit once. Consumers see all of a transaction's messages or none.
 *
 * <p>When one event fails inside the transaction, the transaction is rolled back and the rest of
 * the batch is sent again in a new one without it (and without later events of its aggregate, which
 * must not overtake it). So one bad event costs the others a second send, not an attempt of their
 * budget. Failures found before anything is sent (routing, a reserved header, a value the provider
 * refuses while building the message) need no rollback: the event is simply left out.
 *
 * <p>A watchdog bounds the whole call by the send timeout: if the provider does not answer in time
 * the connection is closed from the watchdog's thread (the one JMS call allowed from another
 * thread), which makes the blocked call fail, and the batch is reported unavailable.
 *
 * <p>An interrupt of the calling thread (not the watchdog's) ends the call at once: the flag is
 * checked before every send, session and commit, a provider call that fails because of it ends the
 * transaction, and the session is rolled back and closed on a helper thread, because both are round
 * trips a provider may wait for regardless of interrupts. Events committed before (one per
 * transaction after a refused commit) stay delivered; the rest are unavailable. Providers that
 * swallow the interrupt (ActiveMQ Classic's producer flow control does) get the flag back.
 */
public final class BatchSender {
  private static final Logger log = LoggerFactory.getLogger(BatchSender.class);

  /**
   * Transactions started again after an event failed for an unexplained reason; after that the rest
   * of the batch is retried later. Failures known to be the event's (bad content or destination)
   * always allow another round: each removes at least one event.
   */
  private static final int MAX_UNEXPLAINED_ROUNDS = 1;

  private final String name;
  private final ConnectionHolder holder;
  private final Function<OutboxEvent, JmsDestination> router;
  private final MessageFactory messages;
  private final Duration sendTimeout;
  private final ScheduledExecutorService watchdog;

  /**
   * @param name for log lines
   * @param holder the connection
   * @param router the destination of an event (router, then the default rule)
   * @param messages builds the messages
   * @param sendTimeout bound of one call, connecting included
   * @param watchdog runs the timeout guard
   */
  public BatchSender(
      String name,
      ConnectionHolder holder,
      Function<OutboxEvent, JmsDestination> router,
      MessageFactory messages,
      Duration sendTimeout,
      ScheduledExecutorService watchdog) {
    this.name = name;
    this.holder = holder;
    this.router = router;
    this.messages = messages;
    this.sendTimeout = sendTimeout;
    this.watchdog = watchdog;
  }

  /**
   * Sends the batch and returns one result per message, in order.
   *
   * @param batch the messages, at least one (the transport answers an empty batch itself)
   * @return the results
   */
  public List<SendResult> send(List<OutboxMessage> batch) {
    return new Attempt(batch).run();
  }

  /** One call of {@link #send}. Used by the calling thread only, apart from the guard. */
  private final class Attempt {
    private final List<OutboxMessage> batch;
    private final int size;
    private final SendResult[] results;
    private final long startNanos = System.nanoTime();
    private final long deadlineNanos = startNanos + sendTimeout.toNanos();
    // Aggregates with a failed event in this batch -> that event: later ones are held back.
    private final Map<String, Failed> failedAggregates = new HashMap<>();
    // Destinations the provider called invalid in this batch -> the result for their events.
    private final Map<JmsDestination, SendResult> failedDestinations = new HashMap<>();
    private volatile boolean timedOut;
    private final Thread caller = Thread.currentThread();
    private final Object guardLock = new Object();
    private boolean guarding; // guarded by guardLock
    private int unexplainedRounds;
    // After a refused commit of several events: one event per transaction from then on.
    private boolean singles;
    private int rounds;
    // Why the call ended early (transport-wide), and how: for the reconnect-once rule.
    private String outage;
    private Category abortCategory;
    // The caller's interrupt ended the call (not the watchdog's): give the flag back at the end.
    private boolean interrupted;
    // True while a commit is under way: an interrupt then leaves its outcome unknown.
    private boolean committing;

    Attempt(List<OutboxMessage> batch) {
      this.batch = batch;
      this.size = batch.size();
      this.results = new SendResult[size];
    }

    List<SendResult> run() {
      boolean reconnected = false;
      while (true) {
        long knownConnections = holder.connectionsCreated();
        Link link;
        try {
          link = holder.acquire(deadlineNanos);
        } catch (TimeoutException e) {
          return finish(
              "could not connect to the JMS provider within the sendTimeout of " + sendTimeout);
        } catch (InterruptedException e) {
          interrupted = true;
          return finish("not confirmed: interrupted while connecting to the JMS provider");
        } catch (JMSException | RuntimeException e) {
          if (holder.closed()) {
            // Closed while this call ran: not the events' fault, so nothing is charged.
            return finish("JMS transport '" + name + "' was closed during the send");
          }
          return finish(Failures.truncate("cannot connect to the JMS provider: " + describe(e)));
        }
        ScheduledFuture<?> guard = guard(link);
        try {
          sendOn(link);
        } finally {
          synchronized (guardLock) {
            guarding = false;
          }
          if (guard != null) {
            guard.cancel(false);
          }
          if (timedOut) {
            Thread.interrupted(); // the watchdog's interrupt, not a request to stop
          }
        }
        // A connection that had been idle may have died unnoticed (no exception listener, or the
        // listener not yet called; with providers that send a transaction's messages
        // asynchronously, only the commit finds out): connect again at once, once, rather than
        // report an outage that a new connection would not have. Even if the lost commit went
        // through, sending again now duplicates no more than the relay's later retry would.
        boolean stale =
            outage != null
                && abortCategory == Category.CONNECTION
                && !timedOut
                && link.id() <= knownConnections;
        if (!stale
            || reconnected
            || interrupted
            || Thread.currentThread().isInterrupted()
            || deadlineNanos - System.nanoTime() <= 0) {
          return finish(outage);
        }
        log.debug("[{}] connection went stale while idle ({}); reconnecting", name, outage);
        reconnected = true;
        outage = null;
        abortCategory = null;
      }
    }

    /**
     * If the call overruns its deadline: interrupts the calling thread (most providers wait for the
     * broker's answer on interruptible locks) and closes the connection (the one JMS call allowed
     * from another thread, which fails what is blocked on it with providers that abort pending
     * requests on close). Either makes the blocked call fail; the batch is then unavailable.
     */
    private ScheduledFuture<?> guard(Link link) {
      long left = deadlineNanos - System.nanoTime();
      synchronized (guardLock) {
        guarding = true;
      }
      try {
        return watchdog.schedule(
            () -> {
              synchronized (guardLock) {
                if (!guarding) {
                  return; // finished just in time
                }
                timedOut = true;
                caller.interrupt();
              }
              holder.discard(
                  link, "no answer from the JMS provider within the sendTimeout of " + sendTimeout);
            },
            Math.max(0, left),
            TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        return null; // the transport is closing; the connection is being closed anyway
      }
    }

    private void sendOn(Link link) {
      if (Thread.currentThread().isInterrupted() && !timedOut) {
        // Opening a session is a round trip that some providers wait for regardless.
        outage = outageReason(Category.INTERRUPTED, null);
        abortCategory = Category.INTERRUPTED;
        interrupted = true;
        return;
      }
      PooledSession session;
      try {
        session = link.borrow();
      } catch (JMSException | RuntimeException e) {
        Category c = classify(e, link);
        if (c == Category.CONNECTION) {
          holder.discard(link, describe(e));
        }
        if (isTransportWide(c)) {
          outage = outageReason(c, e);
          abortCategory = c;
        } else {
          fillUndecided(
              SendResult.retry(
                  Failures.truncate("cannot open a JMS session: " + describe(e)), null));
        }
        return;
      }
      boolean usable;
      try {
        usable = rounds(link, session);
      } catch (RuntimeException e) {
        // A provider bug or a throwing router that escaped the checks: the session's state is
        // unknown, so it is not reused and nothing undecided counts as delivered.
        log.warn("[{}] unexpected failure while sending a batch: {}", name, describe(e));
        fillUndecided(SendResult.retry(describe(e), null));
        usable = false;
      }
      if (usable) {
        link.giveBack(session);
      } else if (interrupted) {
        link.abandonLater(session); // rolls back and closes it without keeping this thread
      } else {
        link.abandon(session);
      }
    }

    /** Runs transactions until every event is decided. True if the session can be reused. */
    private boolean rounds(Link link, PooledSession session) {
      while (true) {
        rounds++;
        Round round = round(link, session);
        if (round == Round.DONE) {
          return true;
        }
        if (round == Round.BROKEN) {
          return false;
        }
      }
    }

    private Round round(Link link, PooledSession session) {
      List<Integer> sent = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        if (results[i] != null || heldBack(i)) {
          continue;
        }
        if (timedOut || Thread.currentThread().isInterrupted()) {
          return abort(link, session, timedOut ? Category.CONNECTION : Category.INTERRUPTED, null);
        }
        Round end = sendOne(link, session, i);
        if (end != null) {
          return end;
        }
        if (results[i] != null) {
          continue; // decided without being sent, or its send failed and was undone
        }
        sent.add(i);
        if (singles) {
          Round r = commit(link, session, sent);
          if (r != Round.DONE) {
            return r;
          }
          sent.clear();
        }
      }
      return commit(link, session, sent);
    }

    /** True (and the event decided) when an earlier event of its aggregate failed. */
    private boolean heldBack(int i) {
      Failed blocker = failedAggregates.get(aggregateKey(batch.get(i).event()));
      if (blocker == null || blocker.index >= i) {
        return false;
      }
      results[i] =
          SendResult.retry(
              "not sent: event " + blocker.id + " of the same aggregate failed before it", null);
      return true;
    }

    /**
     * Routes, builds and sends the event in the open transaction, or decides it without sending.
     * Null when the round goes on with the next event; else how the round ends.
     */
    private Round sendOne(Link link, PooledSession session, int i) {
      OutboxEvent event = batch.get(i).event();
      JmsDestination target;
      try {
        target = router.apply(event);
      } catch (RuntimeException e) {
        decide(
            i,
            SendResult.retry(Failures.truncate("destination router failed: " + describe(e)), null));
        return null;
      }
      SendResult known = failedDestinations.get(target);
      if (known != null) {
        decide(i, known);
        return null;
      }
      Destination destination;
      Message message;
      try {
        destination = session.resolve(target);
        message = messages.build(session.session(), event);
      } catch (MessageFactory.EventRefusedException e) {
        decide(i, SendResult.reject(Failures.truncate(e.getMessage())));
        return null;
      } catch (JMSException | RuntimeException e) {
        // Nothing of this event reached the provider: no rollback needed, unless the
        // session or connection is gone.
        Category c = classify(e, link);
        if (isTransportWide(c)) {
          return abort(link, session, c, e);
        }
        decideFailure(i, c, e, target);
        return null;
      }
      try {
        session
            .producer()
            .send(
                destination,
                message,
                DeliveryMode.PERSISTENT,
                Message.DEFAULT_PRIORITY,
                messages.timeToLive(event));
      } catch (JMSException | RuntimeException e) {
        return sendFailed(link, session, i, e, target);
      }
      return null;
    }

    /**
     * After the provider refused to send the event: decides it and undoes the transaction. Null
     * when the round goes on with the next event; else how the round ends.
     */
    private Round sendFailed(
        Link link, PooledSession session, int i, Exception e, JmsDestination target) {
      Category c = classify(e, link);
      if (isTransportWide(c)) {
        return abort(link, session, c, e);
      }
      decideFailure(i, c, e, target);
      // Earlier sends of this round may sit in the transaction in any state: undo them and
      // start a new transaction without the failed event.
      if (!rollback(link, session)) {
        return Round.BROKEN;
      }
      if (singles) {
        return null; // nothing else was in the transaction
      }
      if (c == Category.RETRY && ++unexplainedRounds > MAX_UNEXPLAINED_ROUNDS) {
        fillUndecided(
            SendResult.retry(
                "not sent: the batch's JMS transaction was rolled back after other events"
                    + " failed",
                null));
        return Round.DONE;
      }
      return Round.AGAIN;
    }

    /**
     * Commits the events sent in this transaction. If the provider refuses the commit without
     * losing the connection, it does not say which message it objected to (ActiveMQ Classic, for
     * one, fails the whole commit when the broker refused a single message of it): the events are
     * then sent again one per transaction, so only the one at fault is retried.
     */
    private Round commit(Link link, PooledSession session, List<Integer> sent) {
      if (sent.isEmpty()) {
        return Round.DONE;
      }
      if (timedOut || Thread.currentThread().isInterrupted()) {
        return abort(link, session, timedOut ? Category.CONNECTION : Category.INTERRUPTED, null);
      }
      try {
        committing = true;
        session.session().commit();
        committing = false;
      } catch (JMSException | RuntimeException e) {
        Category c = classify(e, link);
        if (isTransportWide(c)) {
          // If the connection broke (or the wait was interrupted) during the commit, the provider
          // may have committed: the events are sent again later and consumers may see them twice,
          // as at-least-once allows. Reporting them delivered could lose them.
          Round r = abort(link, session, c, e);
          committing = false;
          return r;
        }
        committing = false;
        if (!rollback(link, session)) {
          return Round.BROKEN;
        }
        if (sent.size() > 1) {
          log.debug(
              "[{}] commit of {} events refused ({}); sending them one per transaction",
              name,
              sent.size(),
              describe(e));
          singles = true;
          return Round.AGAIN;
        }
        String reason = Failures.truncate("the JMS provider refused the commit: " + describe(e));
        decide(
            sent.get(0),
            c == Category.REJECT ? SendResult.reject(reason) : SendResult.retry(reason, null));
        return Round.DONE;
      }
      for (int i : sent) {
        results[i] = SendResult.delivered();
      }
      return Round.DONE;
    }

    private void decideFailure(int i, Category c, Throwable e, JmsDestination target) {
      SendResult r = eventResult(c, e, target);
      decide(i, r);
      if (Classifier.isDestinationFailure(e)) {
        failedDestinations.put(target, r);
      }
    }

    /**
     * Ends the call on a transport-wide failure: every undecided event is unavailable. A lost
     * connection is discarded; after an interrupt the session is rolled back and closed on a helper
     * thread (see {@link #sendOn}), so that this one returns now; otherwise the transaction is
     * rolled back so nothing of it stays.
     */
    private Round abort(Link link, PooledSession session, Category c, Throwable e) {
      outage = outageReason(c, e);
      abortCategory = c;
      if (c == Category.CONNECTION) {
        holder.discard(link, outage);
      } else if (c == Category.INTERRUPTED) {
        interrupted = true;
      } else {
        rollback(link, session);
      }
      return Round.BROKEN;
    }

    private String outageReason(Category c, Throwable e) {
      if (timedOut) {
        return "no answer from the JMS provider within the sendTimeout of " + sendTimeout;
      }
      if (c == Category.INTERRUPTED) {
        return committing
            ? "not confirmed: interrupted while the JMS provider committed; it may have"
                + " committed, so the events may arrive twice"
            : "not confirmed: interrupted before the JMS transaction committed; it is rolled back";
      }
      if (e == null) {
        return "JMS connection lost";
      }
      return Classifier.reason(c, e);
    }

    /**
     * Rolls back. On failure the session is not reused, and the events still undecided are
     * unavailable (the connection is to blame) or retried.
     */
    private boolean rollback(Link link, PooledSession session) {
      try {
        session.session().rollback();
        return true;
      } catch (JMSException | RuntimeException e) {
        log.debug("[{}] rollback failed: {}", name, describe(e));
        if (outage != null) {
          return false; // already ending the call for a transport-wide reason
        }
        Category c = classify(e, link);
        if (isTransportWide(c)) {
          outage = outageReason(c, e);
          abortCategory = c;
          if (c == Category.CONNECTION) {
            holder.discard(link, outage);
          }
        } else {
          fillUndecided(
              SendResult.retry(
                  Failures.truncate(
                      "not sent: the JMS transaction could not be rolled back: " + describe(e)),
                  null));
        }
        return false;
      }
    }

    /**
     * Classifies, and for a failure the API does not explain asks the connection itself: if a fresh
     * session cannot be opened on it, the connection is to blame, not the event.
     */
    private Category classify(Throwable e, Link link) {
      if (timedOut) {
        return Category.CONNECTION;
      }
      Category c = Classifier.classify(e);
      if (c == Category.INTERRUPTED) {
        // Before the connection's state: a provider may give up on the connection because its
        // wait was interrupted (ActiveMQ Classic does), which is no outage. Never probe then.
        return c;
      }
      if (link.broken()) {
        return Category.CONNECTION;
      }
      if (c == Category.RETRY && !holder.probe(link)) {
        return Category.CONNECTION;
      }
      return c;
    }

    private SendResult eventResult(Category c, Throwable e, JmsDestination target) {
      String reason = Classifier.reason(c, e);
      if (Classifier.isDestinationFailure(e)) {
        reason = Failures.truncate(reason + " (destination " + target + ")");
      }
      return c == Category.REJECT ? SendResult.reject(reason) : SendResult.retry(reason, null);
    }

    private void decide(int i, SendResult result) {
      results[i] = result;
      OutboxEvent event = batch.get(i).event();
      // Keep the earliest failure: a later round may fail an event before one that failed in an
      // earlier round, and everything after the earliest must wait.
      failedAggregates.merge(
          aggregateKey(event), new Failed(i, event.id()), (a, b) -> a.index <= b.index ? a : b);
    }

    private void fillUndecided(SendResult result) {
      for (int i = 0; i < size; i++) {
        if (results[i] == null) {
          results[i] = result;
        }
      }
    }

    /**
     * Every undecided event becomes unavailable with the reason; logs the batch. Gives the caller's
     * interrupt flag back if a provider swallowed it.
     */
    private List<SendResult> finish(String outageReason) {
      if (interrupted && !timedOut && !Thread.currentThread().isInterrupted()) {
        Thread.currentThread().interrupt(); // the watchdog's own interrupt stays cleared
      }
      if (outageReason != null) {
        fillUndecided(SendResult.unavailable(outageReason));
      }
      fillUndecided(SendResult.retry("not sent (no result was recorded)", null));
      List<SendResult> list = List.of(results);
      logBatch(list, outageReason);
      return list;
    }

    private void logBatch(List<SendResult> list, String outageReason) {
      BatchTally tally = BatchTally.of(batch, list);
      if (tally.reject > 0) {
        log.warn("[{}] {} event(s) rejected; first: {}", name, tally.reject, tally.firstReject);
      }
      if (tally.unavailable > 0 && outageReason != null) {
        log.debug(
            "[{}] {} event(s) not sent, no attempt charged: {}",
            name,
            tally.unavailable,
            outageReason);
      }
      if (log.isDebugEnabled()) {
        log.debug(
            "[{}] {}, {} transaction(s)",
            name,
            tally.summary(size, System.nanoTime() - startNanos),
            rounds);
      }
    }
  }

  /** The first failed event of an aggregate in a batch: later events of it are held back. */
  private static final class Failed {
    final int index;
    final UUID id;

    Failed(int index, UUID id) {
      this.index = index;
      this.id = id;
    }
  }

  private static boolean isTransportWide(Category c) {
    return c == Category.CONNECTION || c == Category.BUSY || c == Category.INTERRUPTED;
  }

  private enum Round {
    /** Every event of the round is decided; the session is reusable. */
    DONE,
    /** An event failed and the transaction was rolled back: run another round without it. */
    AGAIN,
    /** The call ends and the session must not be reused. */
    BROKEN
  }

  private static String describe(Throwable e) {
    return Classifier.describe(e);
  }

  private static String aggregateKey(OutboxEvent event) {
    return event.aggregateType() + '\u0000' + event.aggregateId();
  }
}
