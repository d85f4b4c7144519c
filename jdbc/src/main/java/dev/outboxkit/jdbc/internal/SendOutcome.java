package dev.outboxkit.jdbc.internal;

import dev.outboxkit.SendResult;
import java.util.BitSet;
import java.util.List;

/** A batch's results so far, as {@link Sender} saw them, and how the wait for them ended. */
final class SendOutcome {
  /** One per message; null where the send is still under way (see {@link #complete}). */
  final List<SendResult> results;

  /** True when the time limit passed: only the confirmations in {@link #results} are real. */
  final boolean timedOut;

  /** True when the calling thread was interrupted meanwhile (the relay is closing). */
  final boolean interrupted;

  // The messages not sent because an earlier one of their aggregate was not delivered.
  private final BitSet heldBehind;

  SendOutcome(List<SendResult> results, boolean timedOut, boolean interrupted) {
    this(results, timedOut, interrupted, new BitSet());
  }

  SendOutcome(List<SendResult> results, boolean timedOut, boolean interrupted, BitSet heldBehind) {
    this.results = results;
    this.timedOut = timedOut;
    this.interrupted = interrupted;
    this.heldBehind = heldBehind;
  }

  /**
   * Whether message {@code i} was not sent because an earlier message of its aggregate was not
   * delivered: its result says nothing of the transport.
   */
  boolean heldBehind(int i) {
    return heldBehind.get(i);
  }

  /** Whether every message has its result. */
  boolean complete() {
    return !results.contains(null);
  }
}
