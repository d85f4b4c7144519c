package dev.outboxkit.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The live part of an outbox table at one moment, as read by {@link OutboxAdmin#snapshot()}: how
 * many events wait, are being sent, or are quarantined, how many were withdrawn by the application
 * and are kept until retention purges them, and how long the oldest waiting event has waited.
 * Immutable; every figure comes from one statement, so they are consistent with each other.
 */
public final class OutboxSnapshot {
  private final long pending;
  private final long inFlight;
  private final long dead;
  private final long cancelled;
  private final long superseded;
  private final Duration oldestPendingAge;
  private final Instant takenAt;

  OutboxSnapshot(
      long pending,
      long inFlight,
      long dead,
      long cancelled,
      long superseded,
      Duration oldestPendingAge,
      Instant takenAt) {
    this.pending = pending;
    this.inFlight = inFlight;
    this.dead = dead;
    this.cancelled = cancelled;
    this.superseded = superseded;
    this.oldestPendingAge = oldestPendingAge;
    this.takenAt = Objects.requireNonNull(takenAt, "takenAt");
  }

  /** {@return the events waiting to be claimed (new, retrying, or handed back)} */
  public long pending() {
    return pending;
  }

  /** {@return the events claimed by a relay and being sent} */
  public long inFlight() {
    return inFlight;
  }

  /** {@return the quarantined events waiting for an operator (see {@link OutboxAdmin#listDead})} */
  public long dead() {
    return dead;
  }

  /**
   * {@return the CANCELLED events still in the table (withdrawn by {@link Outbox#cancel} or {@link
   * OutboxAdmin#cancel}; never sent)} Retention purges them like PUBLISHED ones, so the figure is
   * the count within the retention period, not since the start.
   */
  public long cancelled() {
    return cancelled;
  }

  /**
   * {@return the SUPERSEDED events still in the table (withdrawn by a later event with the same
   * supersede key; never sent)} Retention purges them like PUBLISHED ones.
   */
  public long superseded() {
    return superseded;
  }

  /**
   * {@return how long the first PENDING event by append order has waited since it occurred, by the
   * database clock; empty when nothing is pending} Zero if the appending host's clock ran ahead of
   * the database's. A growing age means the relay falls behind or is stopped.
   */
  public Optional<Duration> oldestPendingAge() {
    return Optional.ofNullable(oldestPendingAge);
  }

  /** {@return when the figures were read, by the database clock} */
  public Instant takenAt() {
    return takenAt;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof OutboxSnapshot)) {
      return false;
    }
    OutboxSnapshot s = (OutboxSnapshot) o;
    return pending == s.pending
        && inFlight == s.inFlight
        && dead == s.dead
        && cancelled == s.cancelled
        && superseded == s.superseded
        && Objects.equals(oldestPendingAge, s.oldestPendingAge)
        && takenAt.equals(s.takenAt);
  }

  @Override
  public int hashCode() {
    return Objects.hash(pending, inFlight, dead, cancelled, superseded, oldestPendingAge, takenAt);
  }

  @Override
  public String toString() {
    return "OutboxSnapshot[pending="
        + pending
        + ", inFlight="
        + inFlight
        + ", dead="
        + dead
        + ", cancelled="
        + cancelled
        + ", superseded="
        + superseded
        + ", oldestPendingAge="
        + (oldestPendingAge == null ? "none" : oldestPendingAge)
        + ", takenAt="
        + takenAt
        + "]";
  }
}
