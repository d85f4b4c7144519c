package dev.outboxkit.jdbc;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A relay's health, for a health check or a readiness probe: whether it relays, and if not, why and
 * since when. Taken by {@link OutboxRelay#health()}; immutable.
 *
 * <ul>
 *   <li>{@link Status#UP}: started, its database answers and its transport takes events;
 *   <li>{@link Status#DEGRADED}: started and its database answers, but the transport as a whole is
 *       unavailable: events wait, uncharged, until it answers again;
 *   <li>{@link Status#DOWN}: it relays nothing: its database or table cannot be reached (a missing
 *       table, a closed data source, a database that is down), or it is not started, closed, or its
 *       thread ended ({@link OutboxRelay.State#FAILED}).
 * </ul>
 */
public final class RelayHealth {
  /** The three answers of a health check. */
  public enum Status {
    /** Relaying. */
    UP,
    /** Started and reaching its database, but the transport is unavailable. */
    DEGRADED,
    /** Relaying nothing. */
    DOWN
  }

  private final Status status;
  private final Instant since;
  private final String lastError;
  private final Instant lastSuccessfulRound;

  private RelayHealth(Status status, Instant since, String lastError, Instant lastRound) {
    this.status = Objects.requireNonNull(status, "status");
    this.since = since;
    this.lastError = lastError;
    this.lastSuccessfulRound = lastRound;
  }

  /**
   * A health value; the relay makes them, tests of code that reads them may too.
   *
   * @param status the status
   * @param since when the status began, or null if unknown (never started)
   * @param lastError why the relay is not UP, or null
   * @param lastSuccessfulRound when the relay last claimed and recorded events (or found none to
   *     claim) without a database failure, or null if never
   * @return the value
   */
  public static RelayHealth of(
      Status status, Instant since, String lastError, Instant lastSuccessfulRound) {
    return new RelayHealth(status, since, lastError, lastSuccessfulRound);
  }

  /** {@return UP, DEGRADED or DOWN} */
  public Status status() {
    return status;
  }

  /** {@return true when the status is UP} */
  public boolean isUp() {
    return status == Status.UP;
  }

  /** {@return when the current status began, by the relay's clock; empty if never started} */
  public Optional<Instant> since() {
    return Optional.ofNullable(since);
  }

  /**
   * {@return why the relay is DEGRADED or DOWN: the database's or the transport's last error, with
   * what to do where the relay knows (a missing table names the DDL to run); empty when UP}
   */
  public Optional<String> lastError() {
    return Optional.ofNullable(lastError);
  }

  /**
   * {@return when the relay last completed a round against its database (claimed and recorded
   * events, or found none to claim), by the relay's clock; empty if never}
   */
  public Optional<Instant> lastSuccessfulRound() {
    return Optional.ofNullable(lastSuccessfulRound);
  }

  @Override
  public String toString() {
    return status
        + (since == null ? "" : " since " + since)
        + (lastError == null ? "" : ": " + lastError)
        + (lastSuccessfulRound == null
            ? ""
            : " (last successful round " + lastSuccessfulRound + ")");
  }
}
