package dev.outboxkit.jdbc.internal;

/**
 * The decisions of the relay's pipeline ({@link RelayCycle#runWhileFull()}), apart from the batches
 * they move: while batch N is sent, batch N+1 may already be claimed ("ahead"); once N has its
 * results, N+1 is sent or handed back, and N's acknowledgement may claim the batch after in the
 * same transaction. Pure functions of what the cycle observed, so a table can test them.
 */
final class Pipeline {
  private Pipeline() {}

  /** What the cycle observed once the batch in flight has its results. */
  static final class Observed {
    /** A batch was claimed ahead and waits, unsent. */
    final boolean aheadClaimed;

    /**
     * The batch in flight went through: no failure, not cut short by the relay closing, and the
     * transport is neither paused for an outage nor being probed.
     */
    final boolean healthy;

    /** The batch claimed ahead waited so briefly that its lease still covers a send. */
    final boolean aheadLeaseCovers;

    /** The batch claimed ahead is one after which the next is claimed while it is sent. */
    final boolean aheadClaimsAhead;

    /**
     * The batch in flight had runs: the next claim follows its acknowledgement, which frees them.
     */
    final boolean followsRuns;

    /** Claiming ahead failed while the batch was sent. */
    final boolean claimFailed;

    /** The relay is closing. */
    final boolean stopping;

    Observed(
        boolean aheadClaimed,
        boolean healthy,
        boolean aheadLeaseCovers,
        boolean aheadClaimsAhead,
        boolean followsRuns,
        boolean claimFailed,
        boolean stopping) {
      this.aheadClaimed = aheadClaimed;
      this.healthy = healthy;
      this.aheadLeaseCovers = aheadLeaseCovers;
      this.aheadClaimsAhead = aheadClaimsAhead;
      this.followsRuns = followsRuns;
      this.claimFailed = claimFailed;
      this.stopping = stopping;
    }
  }

  /** What to do before the acknowledgement of the batch that was in flight. */
  static final class Plan {
    /** Send the batch claimed ahead now; otherwise it goes back unsent, uncharged. */
    final boolean sendAhead;

    /** Claim the next batch in the acknowledgement's transaction. */
    final boolean claimWithAck;

    Plan(boolean sendAhead, boolean claimWithAck) {
      this.sendAhead = sendAhead;
      this.claimWithAck = claimWithAck;
    }
  }

  /**
   * The plan once the batch in flight has its results: the batch claimed ahead is sent only after a
   * healthy round and while its lease covers a send; the acknowledgement claims the round after it
   * (or, with nothing claimed ahead because of runs, the next round itself) only when all is well.
   */
  static Plan afterSend(Observed o) {
    boolean sendAhead = o.aheadClaimed && o.healthy && o.aheadLeaseCovers;
    boolean claimWithAck =
        !o.claimFailed
            && o.healthy
            && !o.stopping
            && (o.aheadClaimed ? sendAhead && o.aheadClaimsAhead : o.followsRuns);
    return new Plan(sendAhead, claimWithAck);
  }

  /** Where the pipeline goes once the acknowledgement committed. */
  enum Next {
    /** The round or the claim ahead failed: settle the batch claimed ahead, then throw. */
    FAIL,
    /** Nothing more to send: the pipeline ends. */
    DONE,
    /** Send the batch the acknowledgement claimed. */
    SEND_CLAIMED,
    /** Record the batch claimed ahead as handed back, and end. */
    HAND_BACK_AHEAD,
    /**
     * The batch claimed ahead is in flight: go on with it (and what the acknowledgement claimed).
     */
    SEND_AHEAD
  }

  /**
   * @param failed the round that was in flight failed, or claiming ahead did
   * @param plan what {@link #afterSend} decided
   * @param claimedWithAck the acknowledgement claimed a batch
   */
  static Next afterAck(boolean failed, Observed o, Plan plan, boolean claimedWithAck) {
    if (failed) {
      return Next.FAIL;
    }
    if (!o.aheadClaimed) {
      return claimedWithAck ? Next.SEND_CLAIMED : Next.DONE;
    }
    return plan.sendAhead ? Next.SEND_AHEAD : Next.HAND_BACK_AHEAD;
  }
}
