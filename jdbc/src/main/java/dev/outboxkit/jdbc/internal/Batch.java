package dev.outboxkit.jdbc.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One claimed batch on its way through a round of {@link RelayCycle}: its rows, its decisions not
 * yet recorded, its send under way, and how the round went.
 */
final class Batch {
  final String token;
  final List<ClaimedEvent> claimed;
  final boolean probing;
  final long claimedAt;
  RoundDecision.Round round;
  // Decided, not yet recorded: what the next acknowledgement writes.
  final List<RoundDecision.Decided> unrecorded = new ArrayList<>();
  // The last decision came from a send cut short by the relay closing.
  boolean interrupted;
  SendUnderway sending;
  // Its sends left to finish on their own, handed to the stragglers once the rest is recorded.
  SendUnderway straggling;
  long sendStart;
  Duration sendTime = Duration.ZERO;
  Throwable failure;

  Batch(String token, List<ClaimedEvent> claimed, boolean probing, long claimedAt) {
    this.token = token;
    this.claimed = claimed;
    this.probing = probing;
    this.claimedAt = claimedAt;
  }

  /** Starts the batch's decisions over with {@code round}, dropping what was decided before. */
  void begin(RoundDecision.Round round) {
    this.round = round;
    unrecorded.clear();
    unrecorded.add(round.prepared);
    interrupted = false;
  }

  void apply(RoundDecision.Decided decided) {
    unrecorded.add(decided);
    interrupted = decided.interrupted;
  }

  /** Moves the decided acknowledgements and listener calls out, to record them. */
  void takeUnrecorded(List<Ack> acks, List<Runnable> notices) {
    for (RoundDecision.Decided decided : unrecorded) {
      acks.addAll(decided.acks);
      notices.addAll(decided.notices);
    }
    unrecorded.clear();
  }

  /** Throws the failure that ended this batch's round, if any. */
  void rethrowFailure() {
    if (failure instanceof Error) {
      throw (Error) failure;
    }
    if (failure != null) {
      throw (RuntimeException) failure;
    }
  }
}
