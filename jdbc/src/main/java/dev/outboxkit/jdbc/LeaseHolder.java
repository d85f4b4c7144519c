package dev.outboxkit.jdbc;

import java.time.Instant;

/**
 * A relay holding IN_FLIGHT events right now, as read by {@link OutboxAdmin#leaseHolders}: the
 * relays seen working. An idle relay holds nothing and is not seen. Immutable.
 */
public final class LeaseHolder {
  private final String owner;
  private final long events;
  private final Instant firstLeaseUntil;
  private final Instant lastLeaseUntil;

  LeaseHolder(String owner, long events, Instant firstLeaseUntil, Instant lastLeaseUntil) {
    this.owner = owner;
    this.events = events;
    this.firstLeaseUntil = firstLeaseUntil;
    this.lastLeaseUntil = lastLeaseUntil;
  }

  /**
   * {@return the relay's owner id ({@code RelayOptions.Builder#ownerId}, host and pid by default)}
   */
  public String owner() {
    return owner;
  }

  /** {@return how many events it holds} */
  public long events() {
    return events;
  }

  /**
   * {@return the earliest end of its leases: a time in the past means the relay stopped answering}
   */
  public Instant firstLeaseUntil() {
    return firstLeaseUntil;
  }

  /**
   * {@return the latest end of its leases, renewed with each claim: its last activity plus the
   * lease}
   */
  public Instant lastLeaseUntil() {
    return lastLeaseUntil;
  }
}
