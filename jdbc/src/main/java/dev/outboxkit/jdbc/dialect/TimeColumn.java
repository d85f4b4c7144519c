package dev.outboxkit.jdbc.dialect;

/**
 * How a database stores instants, and so how they are bound and read. Whatever the type, stored
 * times must compare correctly with the dialect's clock expression.
 */
@Beta
public enum TimeColumn {
  /**
   * {@code TIMESTAMP WITH TIME ZONE}: bound and read as {@link java.time.OffsetDateTime} in UTC.
   */
  OFFSET_DATE_TIME,
  /**
   * A zone-less column holding UTC, bound as text {@code uuuu-MM-dd HH:mm:ss.SSSSSS} (so no driver
   * shifts or truncates it) and read as a {@link java.time.LocalDateTime} in UTC.
   */
  UTC_TEXT,
  /** A zone-less column holding UTC, bound and read as a {@link java.time.LocalDateTime} in UTC. */
  UTC_LOCAL_DATE_TIME,
  /**
   * A zone-less column holding the JVM's local time, bound and read as {@link java.sql.Timestamp}:
   * for a database whose clock is the local time of the JVM it runs in (an embedded database).
   */
  LOCAL_TIMESTAMP
}
