package dev.outboxkit.jdbc;

/**
 * What cancelling an aggregate's waiting events did: how many were withdrawn, and how many a relay
 * held at that moment and so may still be delivered. Immutable.
 */
public final class AggregateCancellation {
  private final int cancelled;
  private final int inFlight;

  AggregateCancellation(int cancelled, int inFlight) {
    this.cancelled = cancelled;
    this.inFlight = inFlight;
  }

  /** {@return how many waiting (PENDING or DEAD) events became CANCELLED} */
  public int cancelled() {
    return cancelled;
  }

  /**
   * {@return how many of the aggregate's events a relay held (IN_FLIGHT) and were left alone} They
   * may still be delivered; call again later to withdraw one that comes back after a failed send.
   */
  public int inFlight() {
    return inFlight;
  }

  /** {@return whether nothing of the aggregate can be sent any more: none was in flight} */
  public boolean isComplete() {
    return inFlight == 0;
  }

  @Override
  public String toString() {
    return "AggregateCancellation[cancelled=" + cancelled + ", inFlight=" + inFlight + "]";
  }
}
