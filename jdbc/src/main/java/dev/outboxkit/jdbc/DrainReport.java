package dev.outboxkit.jdbc;

/**
 * What {@link OutboxRelay#drainUntilDone(java.time.Duration)} did, and what it left: the outcomes
 * the relay recorded meanwhile, by kind, and the PENDING events it could not deliver. Immutable.
 */
public final class DrainReport {
  private final long delivered;
  private final long retried;
  private final long dead;
  private final long expired;
  private final long handedBack;
  private final long heldBehindDead;
  private final long stillPending;
  private final boolean timedOut;

  DrainReport(
      long delivered,
      long retried,
      long dead,
      long expired,
      long handedBack,
      long heldBehindDead,
      long stillPending,
      boolean timedOut) {
    this.delivered = delivered;
    this.retried = retried;
    this.dead = dead;
    this.expired = expired;
    this.handedBack = handedBack;
    this.heldBehindDead = heldBehindDead;
    this.stillPending = stillPending;
    this.timedOut = timedOut;
  }

  /** {@return events delivered (PUBLISHED, or deleted with {@code deleteOnPublish})} */
  public long delivered() {
    return delivered;
  }

  /** {@return failed sends scheduled for a retry, attempt charged (an event may count twice)} */
  public long retried() {
    return retried;
  }

  /** {@return events quarantined as DEAD} */
  public long dead() {
    return dead;
  }

  /** {@return events that expired before they could be sent} */
  public long expired() {
    return expired;
  }

  /**
   * {@return events handed back to PENDING uncharged: their transport or destination was
   * unavailable, or an earlier event of their aggregate was not delivered (an event may count
   * twice)}
   */
  public long handedBack() {
    return handedBack;
  }

  /**
   * {@return PENDING events left behind an earlier DEAD event of their aggregate, which an ordered
   * relay delivers only once that one is replayed or discarded; 0 for an unordered relay}
   */
  public long heldBehindDead() {
    return heldBehindDead;
  }

  /** {@return events still PENDING when the drain returned, those held behind DEAD included} */
  public long stillPending() {
    return stillPending;
  }

  /**
   * {@return true if the drain returned because {@code maxWait} passed while deliverable events
   * were still PENDING; false if nothing deliverable was left}
   */
  public boolean timedOut() {
    return timedOut;
  }

  @Override
  public String toString() {
    return "delivered "
        + delivered
        + ", retried "
        + retried
        + ", dead "
        + dead
        + ", expired "
        + expired
        + ", handed back "
        + handedBack
        + ", held behind DEAD "
        + heldBehindDead
        + ", still pending "
        + stillPending
        + (timedOut ? " (timed out)" : "");
  }
}
