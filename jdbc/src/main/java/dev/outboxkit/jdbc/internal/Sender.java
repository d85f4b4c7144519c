package dev.outboxkit.jdbc.internal;

import dev.outboxkit.Failures;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls the transport for one batch on a send thread, within {@code sendTimeout}, and turns
 * whatever comes back — results, futures, a wrong number of them, a thrown {@code Error} — into one
 * result per message.
 *
 * <ul>
 *   <li>A batch answer that cannot be matched to the messages (an exception or error thrown by the
 *       transport, too few or too many results) is a transport bug or a failure of one event that
 *       the transport did not place: the batch's messages are then sent one at a time, so each gets
 *       its own answer and a failing one is that event's failure, never the batch's.
 *   <li>A batch goes through {@link Transport#sendBatchAsync}, so each result arrives when the
 *       transport knows it. {@link #await} may then return before the last one: once some results
 *       are in and no other came for an eighth of the time those took ({@link
 *       SendUnderway#MIN_QUIET} at least), the rest are left to finish on their own (the relay
 *       carries them as stragglers, bounded in number), so a slow destination does not hold back
 *       the events that were confirmed.
 *   <li>When the time limit passes, or the calling thread is interrupted (the relay is closing), a
 *       send thread still in the transport is interrupted and given a moment ({@link #GRACE}) to
 *       return what it has, and futures not yet completed are cancelled: every confirmed message
 *       counts as delivered, every other one is handed back uncharged, so only what was not
 *       confirmed is sent again.
 *   <li>In ordered mode, a batch that holds a run of one aggregate's events goes to a transport
 *       that does not keep order within a batch in waves: one event per aggregate per call, the
 *       next wave only with the aggregates whose previous event was delivered; the others come back
 *       unavailable and marked {@linkplain SendOutcome#heldBehind held behind}.
 *   <li>A send thread that ignores the interrupt is abandoned, counted and reported; the pool has
 *       at most {@link RelayThreads#MAX_SEND_THREADS} threads, so such a transport costs a bounded
 *       number of threads, and with every one stuck, batches are handed back as an outage.
 * </ul>
 */
final class Sender {
  /** How long an interrupted send may take to return its results. */
  static final Duration GRACE = Duration.ofSeconds(1);

  private static final Logger log = LoggerFactory.getLogger("dev.outboxkit.jdbc.OutboxRelay");

  private final RelaySettings settings;
  private final Transport transport;
  private final ExecutorService pool;
  private final IntConsumer onAbandoned;
  private final AtomicInteger abandoned = new AtomicInteger();
  private final TransportConduct conduct;
  private final TransportCalls calls;

  /**
   * @param conduct whether runs may go in one batch, and where a wrong-size answer is reported
   * @param onAbandoned told the number of abandoned send threads whenever one more is abandoned
   */
  Sender(
      RelaySettings settings,
      Transport transport,
      TransportConduct conduct,
      ExecutorService pool,
      IntConsumer onAbandoned) {
    this.settings = settings;
    this.transport = transport;
    this.conduct = conduct;
    this.calls = new TransportCalls(settings.name, transport, conduct);
    this.pool = pool;
    this.onAbandoned = onAbandoned;
  }

  /** Send threads abandoned in a transport that ignored the interrupt and are still stuck there. */
  int abandoned() {
    return abandoned.get();
  }

  /** Sends the batch and waits for all of it; never throws: every message gets a result. */
  SendOutcome send(List<OutboxMessage> messages) {
    return await(start(messages), 0, Long.MAX_VALUE);
  }

  /**
   * Hands the batch to a send thread and returns at once; the time limit runs from now. Never
   * throws.
   */
  SendUnderway start(List<OutboxMessage> messages) {
    SendUnderway started = new SendUnderway(messages, settings.sendTimeout, Call::new);
    try {
      pool.execute(started.call);
    } catch (RejectedExecutionException e) {
      String reason =
          pool.isShutdown()
              ? "relay closed before the batch was sent"
              : "every send thread ("
                  + RelayThreads.MAX_SEND_THREADS
                  + ") is stuck in a transport call that ignored its interrupt";
      SendUnderway refused = new SendUnderway(messages, settings.sendTimeout, null);
      refused.completeAll(uniform(messages.size(), SendResult.unavailable(reason)));
      return refused;
    }
    return started;
  }

  /**
   * Waits for a started batch until every message has its result or the time limit passes; never
   * throws.
   *
   * @param room how many messages may be left to finish on their own (0: wait for all)
   * @param wakeAtNanos when to return null if the batch is still under way, in {@link
   *     System#nanoTime()} terms ({@code Long.MAX_VALUE}: never), so the caller can see to other
   *     batches' time limits
   * @return the outcome, with nulls where sends were left to finish on their own; null if woken at
   *     {@code wakeAtNanos}
   */
  SendOutcome await(SendUnderway started, int room, long wakeAtNanos) {
    boolean interrupted = false;
    synchronized (started) {
      try {
        while (!started.allDone()) {
          long now = System.nanoTime();
          long cutAt = started.cutAtNanos(room);
          if (now - started.deadlineNanos() >= 0) {
            break;
          }
          if (cutAt != Long.MAX_VALUE && now - cutAt >= 0) {
            return started.snapshot(false, false);
          }
          if (wakeAtNanos != Long.MAX_VALUE && now - wakeAtNanos >= 0) {
            return null;
          }
          long until = started.deadlineNanos();
          if (cutAt != Long.MAX_VALUE && cutAt - until < 0) {
            until = cutAt;
          }
          if (wakeAtNanos != Long.MAX_VALUE && wakeAtNanos - until < 0) {
            until = wakeAtNanos;
          }
          TimeUnit.NANOSECONDS.timedWait(started, Math.max(1, until - now));
        }
      } catch (InterruptedException e) {
        interrupted = true;
      }
      if (started.allDone()) {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
        return started.snapshot(false, interrupted);
      }
    }
    return stop(started, interrupted);
  }

  /**
   * A straggler's results so far, without waiting; once its time limit passed, the rest is closed
   * out as not confirmed (handed back uncharged).
   */
  SendOutcome poll(SendUnderway started) {
    if (System.nanoTime() - started.deadlineNanos() >= 0 && !started.allDone()) {
      int handedBack =
          started.closeOut("send timed out after " + settings.sendTimeout + ": not confirmed");
      log.warn(
          "[{}] transport did not confirm {} events of a batch of {} within sendTimeout {}; they"
              + " are handed back uncharged",
          settings.name,
          handedBack,
          started.messages.size(),
          settings.sendTimeout);
      return started.snapshot(true, false);
    }
    return started.snapshot(false, false);
  }

  /**
   * Stops a batch still under way (time limit passed, or the relay is closing): a send thread still
   * in the transport is interrupted and given {@link #GRACE} to return what it has, futures still
   * open are cancelled, and every message without a confirmation is handed back uncharged.
   *
   * @param closing the relay is closing (the caller was interrupted), not the time limit
   */
  SendOutcome stop(SendUnderway started, boolean closing) {
    String reason =
        closing
            ? "relay closing: not confirmed before the send was stopped"
            : "send timed out after " + settings.sendTimeout + ": not confirmed";
    boolean callEnded;
    synchronized (started) {
      started.interruptReason = reason;
      callEnded = started.callEnded;
    }
    boolean stuck = false;
    if (!callEnded) {
      started.call.interrupt();
      stuck = !awaitCallUninterruptibly(started, GRACE);
    }
    started.closeOut(reason);
    if (closing) {
      Thread.currentThread().interrupt();
    }
    int size = started.messages.size();
    if (stuck) {
      int count = abandoned.incrementAndGet();
      started.call.ended().whenComplete((r, t) -> abandoned.decrementAndGet());
      log.warn(
          "[{}] the transport ignored the interrupt of a batch of {}; its send thread is abandoned"
              + " ({} abandoned and still stuck, at most {} send threads in all)",
          settings.name,
          size,
          count,
          RelayThreads.MAX_SEND_THREADS);
      onAbandoned.accept(count);
    }
    SendOutcome outcome = started.snapshot(!closing, closing);
    if (!closing && !stuck) {
      log.warn(
          "[{}] transport did not finish a batch of {} within sendTimeout {}: {} confirmed, the"
              + " rest handed back uncharged",
          settings.name,
          size,
          settings.sendTimeout,
          size - count(outcome.results, SendResult.Status.UNAVAILABLE));
    }
    return outcome;
  }

  /**
   * Gives up a batch whose outcome the relay could not handle (it hands the rows back): a send
   * thread still in the transport is interrupted and open futures are cancelled, without waiting,
   * so no send goes on for rows that are PENDING again.
   */
  void abandon(SendUnderway started) {
    synchronized (started) {
      started.interruptReason = "not confirmed: the relay gave up the batch";
    }
    if (started.call != null) {
      started.call.interrupt();
    }
    started.closeOut("not confirmed: the relay gave up the batch");
  }

  /** Waits for the transport call to end; true if it did. Ignores interrupts meanwhile. */
  private static boolean awaitCallUninterruptibly(SendUnderway started, Duration wait) {
    long deadline = System.nanoTime() + wait.toNanos();
    boolean interrupted = false;
    try {
      synchronized (started) {
        while (!started.callEnded) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            return false;
          }
          try {
            TimeUnit.NANOSECONDS.timedWait(started, left);
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
        return true;
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static int count(List<SendResult> results, SendResult.Status status) {
    int n = 0;
    for (SendResult r : results) {
      if (r != null && r.status() == status) {
        n++;
      }
    }
    return n;
  }

  static List<SendResult> uniform(int size, SendResult result) {
    List<SendResult> results = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      results.add(result);
    }
    return results;
  }

  /**
   * One transport call on a send thread; its thread can be interrupted while, and only while, it
   * runs.
   */
  private final class Call implements SendUnderway.Call {
    private final SendUnderway started;
    private final CompletableFuture<Void> ended = new CompletableFuture<>();
    private Thread thread; // guarded by this

    Call(SendUnderway started) {
      this.started = started;
    }

    @Override
    public void run() {
      synchronized (this) {
        thread = Thread.currentThread();
      }
      List<OutboxMessage> messages = started.messages;
      try {
        if (messages.size() == 1 || settings.sendIndividually) {
          started.completeAll(calls.oneByOne(messages));
        } else if (settings.ordered
            && !conduct.trustedWithOrder()
            && TransportCalls.hasRuns(messages)) {
          BitSet heldBehind = new BitSet();
          started.completeAll(calls.sendInWaves(messages, heldBehind), heldBehind);
        } else {
          sendAsync(started);
        }
      } catch (Throwable t) {
        // Only an Error thrown while handling an Error gets here: hand the batch back.
        started.completeAll(
            uniform(
                messages.size(), SendResult.unavailable("send failed: " + Failures.describe(t))));
      } finally {
        synchronized (this) {
          thread = null;
          // The pool's thread goes back clean, whatever the transport left.
          Thread.interrupted();
        }
        started.callEnded();
        ended.complete(null);
      }
    }

    @Override
    public synchronized void interrupt() {
      if (thread != null) {
        thread.interrupt();
      }
    }

    @Override
    public CompletableFuture<Void> ended() {
      return ended;
    }
  }

  /**
   * Starts the batch through {@link Transport#sendBatchAsync}; each result reaches {@code started}
   * as its future completes. An answer that cannot be matched to the messages sends them one at a
   * time instead.
   */
  private void sendAsync(SendUnderway started) {
    List<OutboxMessage> messages = started.messages;
    List<CompletableFuture<SendResult>> futures;
    try {
      futures = transport.sendBatchAsync(messages);
    } catch (Throwable t) {
      started.completeAll(calls.afterThrow(messages, t));
      return;
    }
    if (futures == null || futures.size() != messages.size()) {
      started.completeAll(calls.afterMismatch(messages, futures));
      return;
    }
    started.futures(futures);
    for (int i = 0; i < futures.size(); i++) {
      int index = i;
      CompletableFuture<SendResult> f = futures.get(i);
      if (f == null) {
        started.complete(i, SendResult.retry("transport bug: null result", null));
      } else {
        f.whenComplete((r, t) -> started.complete(index, result(r, t)));
      }
    }
  }

  /** What a completed future means for its message. */
  private static SendResult result(SendResult r, Throwable t) {
    if (t == null) {
      return r != null ? r : SendResult.retry("transport bug: null result", null);
    }
    Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    if (cause instanceof CancellationException) {
      return SendResult.unavailable("not confirmed: the send was cancelled");
    }
    return SendResult.retry(Failures.describe(cause), null);
  }
}
