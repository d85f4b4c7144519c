package dev.outboxkit.jdbc.internal;

import java.time.Clock;
import java.time.Duration;

/** The effective settings of one relay, fixed when it is built. */
public final class RelaySettings {
  /** Relay name, the prefix of log lines and lease owners. */
  public final String name;

  /** Events per claim. */
  public final int batchSize;

  /** Claim aggregate heads and the runs behind them, and keep per-aggregate order. */
  public final boolean ordered;

  /** How long a claim holds its rows. */
  public final Duration leaseDuration;

  /** How long the transport may take for a batch. */
  public final Duration sendTimeout;

  /** Attempts before an event-specific failure becomes DEAD. */
  public final int maxAttempts;

  /** Leases an event may lose (expire without an outcome) before it becomes DEAD. */
  public final int leaseLossesBeforeDead;

  /** Delete delivered rows instead of keeping them PUBLISHED. */
  public final boolean deleteOnPublish;

  /** Longest retry delay a transport may ask for. */
  public final Duration maxRetryAfter;

  /** Send each event in its own transport call, with its identifiers in the MDC. */
  public final boolean sendIndividually;

  /** The relay's clock (scheduling, lag); never used for leases or availability. */
  public final Clock clock;

  /** Bundles the settings; the public builder has validated them. */
  public RelaySettings(
      String name,
      int batchSize,
      boolean ordered,
      Duration leaseDuration,
      Duration sendTimeout,
      int maxAttempts,
      int leaseLossesBeforeDead,
      boolean deleteOnPublish,
      Duration maxRetryAfter,
      boolean sendIndividually,
      Clock clock) {
    this.name = name;
    this.batchSize = batchSize;
    this.ordered = ordered;
    this.leaseDuration = leaseDuration;
    this.sendTimeout = sendTimeout;
    this.maxAttempts = maxAttempts;
    this.leaseLossesBeforeDead = leaseLossesBeforeDead;
    this.deleteOnPublish = deleteOnPublish;
    this.maxRetryAfter = maxRetryAfter;
    this.sendIndividually = sendIndividually;
    this.clock = clock;
  }
}
