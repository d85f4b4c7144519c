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

  private Ack(long seq, Kind kind, long delayMicros, String error, boolean charged) {
    this.seq = seq;
    this.kind = kind;
    this.delayMicros = delayMicros;
    this.error = error;
    this.charged = charged;
  }

  /** Delivered. */
  public static Ack published(long seq) {
    return new Ack(seq, Kind.PUBLISHED, 0, null, true);
  }

  /**
   * Try again after a delay.
   *
   * @param charged whether this attempt counts against the event's budget
   */
  public static Ack retry(long seq, long delayMicros, String error, boolean charged) {
    return new Ack(seq, Kind.RETRY, delayMicros, error, charged);
  }

  /** Quarantine with a reason. */
  public static Ack dead(long seq, String error) {
    return new Ack(seq, Kind.DEAD, 0, error, true);
  }

  /** Expired before sending. */
  public static Ack expired(long seq) {
    return new Ack(seq, Kind.EXPIRED, 0, null, true);
  }

  /** Hold back for a while, uncharged, with the same delay as the destination's other events. */
  public static Ack hold(long seq, long delayMicros, String error) {
    return new Ack(seq, Kind.HOLD, delayMicros, error, false);
  }

  /** Hand back without charging the attempt. */
  public static Ack release(long seq) {
    return new Ack(seq, Kind.RELEASE, 0, null, false);
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

  /** The recorded error (RETRY, DEAD, HOLD), payload-free. */
  public String error() {
    return error;
  }
}
