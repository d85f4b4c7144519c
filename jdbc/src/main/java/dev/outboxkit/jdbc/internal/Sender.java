package dev.outboxkit.jdbc.internal;

import dev.outboxkit.Failures;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls the transport for one batch on a send thread, within {@code sendTimeout}, and turns
 * whatever comes back — results, a wrong number of them, a thrown {@code Error} — into one result
 * per message.
 *
 * <ul>
 *   <li>A batch answer that cannot be matched to the messages (an exception or error thrown by
 *       {@code sendBatch}, too few or too many results) is a transport bug or a failure of one
 *       event that the transport did not place: the batch's messages are then sent one at a time,
 *       so each gets its own answer and a failing one is that event's failure, never the batch's.
 *   <li>When the time limit passes, or the calling thread is interrupted (the relay is closing),
 *       the send thread is interrupted and given a moment ({@link #GRACE}) to return what it has:
 *       every confirmed message counts as delivered, every other one is handed back uncharged, so
 *       only what was not confirmed is sent again.
 *   <li>In ordered mode, a batch that holds a run of one aggregate's events goes to a transport
 *       that does not keep order within a batch in waves: one event per aggregate per call, the
 *       next wave only with the aggregates whose previous event was delivered; the others get
 *       {@link RoundDecision#NOT_SENT_BEHIND}.
 *   <li>A send thread that ignores the interrupt is abandoned, counted and reported; the pool has
 *       at most {@link RelayThreads#MAX_SEND_THREADS} threads, so such a transport costs a bounded
 *       number of threads, and with every one stuck, batches are handed back as an outage.
 * </ul>
 */
final class Sender {
  /** How long an interrupted send may take to return its results. */
  static final Duration GRACE = Duration.ofSeconds(1);

  private static final Logger log = LoggerFactory.getLogger("dev.outboxkit.jdbc.OutboxRelay");

  /** One batch's results and how the call ended. */
  static final class Outcome {
    final List<SendResult> results;

    /** True when the time limit passed: only the confirmations in {@link #results} are real. */
    final boolean timedOut;

    /** True when the calling thread was interrupted meanwhile (the relay is closing). */
    final boolean interrupted;

    Outcome(List<SendResult> results, boolean timedOut, boolean interrupted) {
      this.results = results;
      this.timedOut = timedOut;
      this.interrupted = interrupted;
    }
  }

  private final RelaySettings settings;
  private final Transport transport;
  private final ExecutorService pool;
  private final IntConsumer onAbandoned;
  private final AtomicInteger abandoned = new AtomicInteger();
  private final boolean inWaves;

  /**
   * @param onAbandoned told the number of abandoned send threads whenever one more is abandoned
   */
  Sender(
      RelaySettings settings, Transport transport, ExecutorService pool, IntConsumer onAbandoned) {
    this.settings = settings;
    this.transport = transport;
    this.pool = pool;
    this.onAbandoned = onAbandoned;
    this.inWaves = settings.ordered && !transport.keepsOrderWithinBatch();
  }

  /** Send threads abandoned in a transport that ignored the interrupt and are still stuck there. */
  int abandoned() {
    return abandoned.get();
  }

  /** Sends the batch; never throws: every message gets a result. */
  Outcome send(List<OutboxMessage> messages) {
    return await(start(messages));
  }

  /** A batch handed to a send thread; {@link #await} gives its outcome. */
  final class Started {
    private final List<OutboxMessage> messages;
    private final Call call;
    private final long deadlineNanos;
    private final Outcome refused;

    private Started(List<OutboxMessage> messages, Call call, Outcome refused) {
      this.messages = messages;
      this.call = call;
      this.deadlineNanos = System.nanoTime() + settings.sendTimeout.toNanos();
      this.refused = refused;
    }
  }

  /**
   * Hands the batch to a send thread and returns at once; the time limit runs from now. Never
   * throws.
   */
  Started start(List<OutboxMessage> messages) {
    Call call = new Call(messages);
    try {
      pool.execute(call);
    } catch (RejectedExecutionException e) {
      String reason =
          pool.isShutdown()
              ? "relay closed before the batch was sent"
              : "every send thread ("
                  + RelayThreads.MAX_SEND_THREADS
                  + ") is stuck in a transport call that ignored its interrupt";
      return new Started(
          messages,
          null,
          new Outcome(uniform(messages.size(), SendResult.unavailable(reason)), false, false));
    }
    return new Started(messages, call, null);
  }

  /** Waits for a started batch until its time limit; never throws: every message gets a result. */
  Outcome await(Started started) {
    if (started.refused != null) {
      return started.refused;
    }
    List<OutboxMessage> messages = started.messages;
    Call call = started.call;
    boolean interrupted = false;
    List<SendResult> results;
    try {
      long left = Math.max(0, started.deadlineNanos - System.nanoTime());
      results = call.done.get(left, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      results = null;
    } catch (InterruptedException e) {
      interrupted = true;
      results = null;
    } catch (ExecutionException e) {
      results = null; // Call completes normally; kept total for safety
    }
    if (results != null) {
      return new Outcome(results, false, false);
    }
    call.interrupt();
    List<SendResult> late = call.awaitUninterruptibly(GRACE);
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    String reason =
        interrupted
            ? "relay closing: not confirmed before the send was stopped"
            : "send timed out after " + settings.sendTimeout + ": not confirmed";
    if (late == null) {
      int stuck = abandoned.incrementAndGet();
      call.done.whenComplete((r, t) -> abandoned.decrementAndGet());
      log.warn(
          "[{}] the transport ignored the interrupt of a batch of {}; its send thread is abandoned"
              + " ({} abandoned and still stuck, at most {} send threads in all)",
          settings.name,
          messages.size(),
          stuck,
          RelayThreads.MAX_SEND_THREADS);
      onAbandoned.accept(stuck);
      return new Outcome(
          uniform(messages.size(), SendResult.unavailable(reason)), !interrupted, interrupted);
    }
    List<SendResult> kept = confirmationsOnly(late, reason);
    if (!interrupted) {
      log.warn(
          "[{}] transport did not finish a batch of {} within sendTimeout {}: {} confirmed, the"
              + " rest handed back uncharged",
          settings.name,
          messages.size(),
          settings.sendTimeout,
          messages.size() - count(kept, SendResult.Status.UNAVAILABLE));
    }
    return new Outcome(kept, !interrupted, interrupted);
  }

  /**
   * After an interrupt, a failure is most likely the interrupt's doing, not the event's: only
   * confirmations are kept, everything else becomes an uncharged hand-back.
   */
  private static List<SendResult> confirmationsOnly(List<SendResult> results, String reason) {
    List<SendResult> kept = new ArrayList<>(results.size());
    SendResult handBack = SendResult.unavailable(reason);
    for (SendResult r : results) {
      kept.add(r.status() == SendResult.Status.DELIVERED ? r : handBack);
    }
    return kept;
  }

  private static int count(List<SendResult> results, SendResult.Status status) {
    int n = 0;
    for (SendResult r : results) {
      if (r.status() == status) {
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
  private final class Call implements Runnable {
    private final List<OutboxMessage> messages;
    private final CompletableFuture<List<SendResult>> done = new CompletableFuture<>();
    private Thread thread; // guarded by this

    Call(List<OutboxMessage> messages) {
      this.messages = messages;
    }

    @Override
    public void run() {
      synchronized (this) {
        thread = Thread.currentThread();
      }
      try {
        done.complete(inWaves ? sendInWaves(messages) : sendChecked(messages));
      } catch (Throwable t) {
        // Only an Error thrown while handling an Error gets here: hand the batch back.
        done.complete(
            uniform(
                messages.size(), SendResult.unavailable("send failed: " + Failures.describe(t))));
      } finally {
        synchronized (this) {
          thread = null;
          // The pool's thread goes back clean, whatever the transport left.
          Thread.interrupted();
        }
      }
    }

    synchronized void interrupt() {
      if (thread != null) {
        thread.interrupt();
      }
    }

    /** The results, if they come within the wait; null otherwise. Ignores interrupts meanwhile. */
    List<SendResult> awaitUninterruptibly(Duration wait) {
      long deadline = System.nanoTime() + wait.toNanos();
      boolean interrupted = false;
      try {
        while (true) {
          long left = deadline - System.nanoTime();
          try {
            return done.get(Math.max(0, left), TimeUnit.NANOSECONDS);
          } catch (TimeoutException | ExecutionException e) {
            return null;
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /**
   * Sends wave after wave: the first event of each aggregate, then the second of each aggregate
   * whose first was delivered, and so on. A batch of heads only is one wave, one call.
   */
  private List<SendResult> sendInWaves(List<OutboxMessage> messages) {
    int n = messages.size();
    String[] aggregate = new String[n];
    int[] wave = new int[n];
    Map<String, Integer> seen = new HashMap<>();
    int waves = 0;
    for (int i = 0; i < n; i++) {
      OutboxEvent e = messages.get(i).event();
      aggregate[i] = ClaimedEvent.aggregateKey(e.aggregateType(), e.aggregateId());
      wave[i] = seen.merge(aggregate[i], 1, Integer::sum) - 1;
      waves = Math.max(waves, wave[i] + 1);
    }
    if (waves == 1) {
      return sendChecked(messages);
    }
    SendResult[] results = new SendResult[n];
    Set<String> stopped = new HashSet<>();
    for (int w = 0; w < waves; w++) {
      List<Integer> indices = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        if (wave[i] != w) {
          continue;
        }
        if (stopped.contains(aggregate[i])) {
          results[i] = RoundDecision.NOT_SENT_BEHIND;
        } else if (Thread.currentThread().isInterrupted()) {
          results[i] = SendResult.unavailable("not sent: the relay stopped the batch");
        } else {
          indices.add(i);
        }
      }
      if (indices.isEmpty()) {
        continue;
      }
      List<OutboxMessage> part = new ArrayList<>(indices.size());
      for (int i : indices) {
        part.add(messages.get(i));
      }
      List<SendResult> answered = sendChecked(part);
      for (int k = 0; k < indices.size(); k++) {
        int i = indices.get(k);
        results[i] = answered.get(k);
        if (!results[i].isDelivered()) {
          stopped.add(aggregate[i]);
        }
      }
    }
    return Arrays.asList(results);
  }

  /**
   * Calls the transport with each event's identifiers in the MDC where there is one current event:
   * a batch of one, or every event when sending individually (then each goes as a batch of one, so
   * the transport's own handling of {@code send} applies unchanged).
   */
  private List<SendResult> sendChecked(List<OutboxMessage> messages) {
    if (messages.size() == 1 || settings.sendIndividually) {
      return oneByOne(messages);
    }
    List<SendResult> results;
    try {
      results = transport.sendBatch(messages);
    } catch (Throwable t) {
      log.error(
          "[{}] transport's sendBatch threw for a batch of {} ({}); sending them one at a time so"
              + " each event gets its own outcome",
          settings.name,
          messages.size(),
          Failures.describe(t));
      return oneByOne(messages);
    }
    if (results == null || results.size() != messages.size()) {
      log.error(
          "[{}] transport bug: sendBatch returned {} for {} messages; sending them one at a time so"
              + " each event gets its own outcome",
          settings.name,
          results == null ? "null" : results.size() + " results",
          messages.size());
      return oneByOne(messages);
    }
    List<SendResult> checked = new ArrayList<>(results.size());
    for (SendResult r : results) {
      checked.add(r != null ? r : SendResult.retry("transport bug: null result", null));
    }
    return checked;
  }

  private List<SendResult> oneByOne(List<OutboxMessage> messages) {
    List<SendResult> results = new ArrayList<>(messages.size());
    for (OutboxMessage m : messages) {
      if (Thread.currentThread().isInterrupted()) {
        results.add(SendResult.unavailable("not sent: the relay stopped the batch"));
        continue;
      }
      EventMdc scope = EventMdc.of(m.event());
      try {
        List<SendResult> one = transport.sendBatch(List.of(m));
        results.add(
            one == null || one.size() != 1 || one.get(0) == null
                ? SendResult.retry(
                    "transport bug: sendBatch of one message returned "
                        + (one == null
                            ? "null"
                            : one.size() == 1 ? "a null result" : one.size() + " results"),
                    null)
                : one.get(0));
      } catch (Throwable t) {
        // Whatever it is (an Error too: a class missing at run time, a stack overflow on this
        // payload), it is this event's failure.
        results.add(SendResult.retry(Failures.describe(t), null));
      } finally {
        scope.close();
      }
    }
    return results;
  }
}
