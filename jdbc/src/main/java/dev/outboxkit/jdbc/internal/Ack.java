package dev.outboxkit.jdbc.internal;

/** What the relay records for one claimed row after sending. */
final class Ack {
  /** The state a row moves to. */
  public enum Kind {
    /** Delivered: PUBLISHED, or deleted. */
    PUBLISHED,
    /** Back to PENDING later, attempt charged. */
    RETRY,
    /** Quarantined. */
    DEAD,
    /** Past its expiry: never sent. */
    EXPIRED,
    /** Back to PENDING now, attempt not charged (outage, shutdown). */
    RELEASE,
    /**
     * Back to PENDING after a delay, attempt not charged: its destination alone is down. The rows
     * held with the same delay and error are recorded by one statement.
     */
    HOLD
  }

  private final long seq;
  private final Kind kind;
  private final long delayMicros;
  private final String error;
  private final boolean charged;
  private final boolean uncertain;

  private Ack(
      long seq, Kind kind, long delayMicros, String error, boolean charged, boolean uncertain) {
    this.seq = seq;
    this.kind = kind;
    this.delayMicros = delayMicros;
    this.error = error;
    this.charged = charged;
    this.uncertain = uncertain;
  }

  /** Delivered. */
  public static Ack published(long seq) {
    return new Ack(seq, Kind.PUBLISHED, 0, null, true, false);
  }

  /**
   * Try again after a delay.
   *
   * @param charged whether this attempt counts against the event's budget
   */
  public static Ack retry(long seq, long delayMicros, String error, boolean charged) {
    return retry(seq, delayMicros, error, charged, false);
  }

  /**
   * Try again after a delay.
   *
   * @param charged whether this attempt counts against the event's budget
   * @param uncertain whether the send may have arrived (counted in {@code uncertain_sends})
   */
  public static Ack retry(
      long seq, long delayMicros, String error, boolean charged, boolean uncertain) {
    return new Ack(seq, Kind.RETRY, delayMicros, error, charged, uncertain);
  }

  /**
   * Quarantine with a reason.
   *
   * @param uncertain whether the last send may have arrived (counted in {@code uncertain_sends})
   */
  public static Ack dead(long seq, String error, boolean uncertain) {
    return new Ack(seq, Kind.DEAD, 0, error, true, uncertain);
  }

  /** Quarantine with a reason. */
  public static Ack dead(long seq, String error) {
    return dead(seq, error, false);
  }

  /** Expired before sending. */
  public static Ack expired(long seq) {
    return new Ack(seq, Kind.EXPIRED, 0, null, true, false);
  }

  /** Hold back for a while, uncharged, with the same delay as the destination's other events. */
  public static Ack hold(long seq, long delayMicros, String error) {
    return new Ack(seq, Kind.HOLD, delayMicros, error, false, false);
  }

  /** Hand back without charging the attempt. */
  public static Ack release(long seq) {
    return new Ack(seq, Kind.RELEASE, 0, null, false, false);
  }

  /** The row. */
  public long seq() {
    return seq;
  }

  /** The new state. */
  public Kind kind() {
    return kind;
  }

  /** Delay before the next attempt (RETRY, HOLD). */
  public long delayMicros() {
    return delayMicros;
  }

  /** Whether the attempt counts against the event's budget. */
  public boolean charged() {
    return charged;
  }

  /** Whether the send may have arrived though unconfirmed (RETRY, DEAD). */
  public boolean uncertain() {
    return uncertain;
  }

  /** The recorded error (RETRY, DEAD, HOLD), payload-free. */
  public String error() {
    return error;
  }
}
