package dev.outboxkit.jdbc.internal;

/**
 * How one vendor writes the database's current time, for the clock placeholders of the statement
 * files: {@code {now}}, and {@code {now+micros}} and {@code {now-micros}}, that time moved forward
 * or back by one bound parameter of whole microseconds ({@link Micros}). So a statement that
 * differs by vendor only in its time arithmetic is written once, in {@code common.sql}.
 */
final class SqlClock {
  private final String now;
  private final String nowPlusMicros;
  private final String nowMinusMicros;

  /**
   * @param now the current time, e.g. {@code now()}
   * @param nowPlusMicros that time plus {@code ?} microseconds
   * @param nowMinusMicros that time minus {@code ?} microseconds
   */
  SqlClock(String now, String nowPlusMicros, String nowMinusMicros) {
    this.now = now;
    this.nowPlusMicros = nowPlusMicros;
    this.nowMinusMicros = nowMinusMicros;
  }

  /** The statement with this vendor's clock in place of the placeholders. */
  String render(String sql) {
    return sql.replace("{now+micros}", nowPlusMicros)
        .replace("{now-micros}", nowMinusMicros)
        .replace("{now}", now);
  }
}
