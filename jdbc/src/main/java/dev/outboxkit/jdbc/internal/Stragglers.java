package dev.outboxkit.jdbc.internal;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The sends a relay left to finish on their own: the part of a batch still under way when the rest
 * had its results (a slow endpoint beside fast ones), so the confirmed events were recorded — and
 * their aggregates' successors became claimable — without waiting for it. The rows stay IN_FLIGHT
 * under their claim's token and lease; each send ends by its result or by its time limit ({@code
 * sendTimeout}, well inside the lease), and its outcome rides in the relay's next acknowledgement.
 *
 * <p>Bounded by the relay ({@link RelayCycle} lets a batch leave at most so many events here).
 * Thread-safe: the relay's thread and a caller of {@code drain()} may both record what arrived.
 */
final class Stragglers {
  /** One batch's sends still under way. */
  private static final class Entry {
    final String token;
    final RoundDecision.Round round;
    final SendUnderway sending;

    Entry(String token, RoundDecision.Round round, SendUnderway sending) {
      this.token = token;
      this.round = round;
      this.sending = sending;
    }
  }

  /** Outcomes decided for one straggling batch, to record under its token. */
  static final class Part {
    final String token;
    final RoundDecision.Decided decided;

    Part(String token, RoundDecision.Decided decided) {
      this.token = token;
      this.decided = decided;
    }
  }

  private final List<Entry> entries = new ArrayList<>();
  private final Sender sender;
  private final RoundDecision decision;
  private final Runnable wake;
  private int events;
  private boolean progress;

  /**
   * @param sender polls and stops the sends under way
   * @param decision decides their results as they arrive
   * @param wake called (on whatever thread completed a send) when a straggler's result arrives, so
   *     an idle relay records it soon
   */
  Stragglers(Sender sender, RoundDecision decision, Runnable wake) {
    this.sender = sender;
    this.decision = decision;
    this.wake = wake;
  }

  /**
   * Takes over a batch's sends still under way.
   *
   * @param round the batch's round, decided as far as its results went
   */
  void add(String token, RoundDecision.Round round, SendUnderway sending) {
    // Listen first, then look: a result that came before the listener is seen by the next collect
    // (progress is set), one that comes after signals.
    sending.onProgress(this::signal);
    synchronized (this) {
      entries.add(new Entry(token, round, sending));
      events += undecided(round);
      progress = true;
    }
  }

  /** Events still under way. */
  synchronized int events() {
    return events;
  }

  synchronized boolean isEmpty() {
    return entries.isEmpty();
  }

  /**
   * When the earliest time limit of a send under way passes, in {@link System#nanoTime()} terms;
   * {@code Long.MAX_VALUE} if none is under way.
   */
  synchronized long nextDeadlineNanos() {
    long next = Long.MAX_VALUE;
    for (Entry e : entries) {
      long d = e.sending.deadlineNanos();
      if (next == Long.MAX_VALUE || d - next < 0) {
        next = d;
      }
    }
    return next;
  }

  /**
   * Decides what arrived since the last call, and closes out the sends whose time limit passed.
   *
   * @return the parts to record, one per batch that has new outcomes
   */
  synchronized List<Part> collect() {
    if (entries.isEmpty() || (!progress && System.nanoTime() - nextDeadlineNanos() < 0)) {
      return List.of(); // nothing arrived and no time limit passed: every acknowledgement asks
    }
    progress = false;
    return decideAll(false);
  }

  /** Stops every send under way (the relay is closing) and decides all of them. */
  synchronized List<Part> stopAll() {
    return decideAll(true);
  }

  private List<Part> decideAll(boolean stop) {
    List<Part> parts = new ArrayList<>();
    for (Iterator<Entry> it = entries.iterator(); it.hasNext(); ) {
      Entry e = it.next();
      int before = undecided(e.round);
      SendOutcome outcome = stop ? sender.stop(e.sending, true) : sender.poll(e.sending);
      RoundDecision.Decided decided = decision.decide(e.round, outcome, false);
      events -= before - undecided(e.round);
      if (!decided.acks.isEmpty()) {
        parts.add(new Part(e.token, decided));
      }
      if (e.round.settled()) {
        it.remove();
      }
    }
    return parts;
  }

  /**
   * Waits until a result arrives, {@code untilNanos} passes or the thread is interrupted.
   *
   * @return false if interrupted (the flag is set again)
   */
  synchronized boolean awaitProgress(long untilNanos) {
    try {
      while (!progress) {
        long left = untilNanos - System.nanoTime();
        if (left <= 0) {
          return true;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void signal() {
    synchronized (this) {
      progress = true;
      notifyAll();
    }
    wake.run();
  }

  private static int undecided(RoundDecision.Round round) {
    return round.undecided();
  }
}
