package dev.outboxkit.jdbc.internal;

import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A batch handed to a send thread: its results as they arrive. Completions may come from any
 * thread; everything here is guarded by this object's monitor.
 */
final class SendUnderway {
  /** The transport call on a send thread. */
  interface Call extends Runnable {
    /** Interrupts the send thread while, and only while, it runs the call. */
    void interrupt();

    /** {@return a future that completes when the call has returned} */
    CompletableFuture<Void> ended();
  }

  /**
   * The shortest quiet time, after the latest result of a batch, before the rest of it may be left
   * to finish on its own.
   */
  static final Duration MIN_QUIET = Duration.ofMillis(2);

  /**
   * The quiet time before the rest of a batch may be left to finish on its own, as a share of the
   * time its results so far took: one eighth.
   */
  static final int QUIET_SHARE = 8;

  final List<OutboxMessage> messages;
  private final SendResult[] results;
  private final BitSet heldBehind = new BitSet();
  private final long startNanos;
  private final long deadlineNanos;
  final Call call;
  private List<CompletableFuture<SendResult>> futures = List.of();
  private int done;
  private long lastNanos;
  boolean callEnded; // guarded by this
  // After an interrupt, a failure is most likely the interrupt's doing: kept only if confirmed.
  String interruptReason; // guarded by this
  // Closed out (timed out or stopped): late completions are ignored.
  private boolean closed;
  private Runnable onProgress;

  /**
   * @param call makes the call that sends the batch, or null for a batch refused before any call
   */
  SendUnderway(
      List<OutboxMessage> messages, Duration sendTimeout, Function<SendUnderway, Call> call) {
    this.messages = messages;
    this.results = new SendResult[messages.size()];
    this.startNanos = System.nanoTime();
    this.deadlineNanos = startNanos + sendTimeout.toNanos();
    this.call = call == null ? null : call.apply(this);
    this.callEnded = call == null;
  }

  /** When the time limit of this send passes, in {@link System#nanoTime()} terms. */
  long deadlineNanos() {
    return deadlineNanos;
  }

  /** Runs {@code r} (outside the monitor) whenever a result arrives from now on. */
  void onProgress(Runnable r) {
    synchronized (this) {
      onProgress = r;
    }
  }

  void complete(int i, SendResult r) {
    Runnable progress;
    synchronized (this) {
      if (closed || results[i] != null) {
        return;
      }
      results[i] =
          interruptReason == null || r.isDelivered() ? r : SendResult.unavailable(interruptReason);
      done++;
      lastNanos = System.nanoTime();
      notifyAll();
      progress = onProgress;
    }
    if (progress != null) {
      progress.run();
    }
  }

  void completeAll(List<SendResult> all) {
    for (int i = 0; i < all.size(); i++) {
      complete(i, all.get(i));
    }
  }

  /** Results of a send in waves: those {@code heldBehind} were not sent at all. */
  void completeAll(List<SendResult> all, BitSet heldBehind) {
    synchronized (this) {
      this.heldBehind.or(heldBehind);
    }
    completeAll(all);
  }

  synchronized void futures(List<CompletableFuture<SendResult>> futures) {
    this.futures = futures;
  }

  synchronized void callEnded() {
    callEnded = true;
    notifyAll();
  }

  synchronized boolean allDone() {
    return done == results.length;
  }

  /** A copy of the results so far. */
  synchronized SendOutcome snapshot(boolean timedOut, boolean interrupted) {
    return new SendOutcome(
        new ArrayList<>(Arrays.asList(results)),
        timedOut,
        interrupted,
        (BitSet) heldBehind.clone());
  }

  /**
   * When the rest of the batch may be left to finish on its own, in {@link System#nanoTime()}
   * terms; {@code Long.MAX_VALUE} while that may not happen (no result yet, the transport call
   * still running, or more left than {@code room}).
   */
  long cutAtNanos(int room) {
    if (done == 0 || !callEnded || results.length - done > room) {
      return Long.MAX_VALUE;
    }
    long took = lastNanos - startNanos;
    return lastNanos + Math.max(took / QUIET_SHARE, MIN_QUIET.toNanos());
  }

  /**
   * Ends the wait for good: every message without a result gets {@code reason} (uncharged), and the
   * futures still under way are cancelled.
   */
  int closeOut(String reason) {
    List<CompletableFuture<SendResult>> open;
    int handedBack = 0;
    synchronized (this) {
      if (closed) {
        return 0;
      }
      closed = true;
      SendResult handBack = SendResult.unavailable(reason);
      for (int i = 0; i < results.length; i++) {
        if (results[i] == null) {
          results[i] = handBack;
          done++;
          handedBack++;
        }
      }
      open = futures;
      notifyAll();
    }
    for (CompletableFuture<SendResult> f : open) {
      if (f != null && !f.isDone()) {
        f.cancel(true);
      }
    }
    return handedBack;
  }
}
