package dev.outboxkit.http.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/** Parses an HTTP {@code Retry-After} value (RFC 9110 §10.2.3). */
final class RetryAfter {
  private RetryAfter() {}

  /**
   * Turns a {@code Retry-After} value into a delay.
   *
   * @param value delay-seconds ({@code "120"}) or an IMF-fixdate ({@code "Wed, 21 Oct 2015 07:28:00
   *     GMT"}); may be null
   * @param now the current time, to turn a date into a delay
   * @param max the longest delay honoured; longer ones are cut to it, so a confused or hostile
   *     endpoint cannot park events for days
   * @return the delay, zero for a date in the past, or null when absent or unparseable
   */
  public static Duration parse(String value, Instant now, Duration max) {
    if (value == null) {
      return null;
    }
    String v = value.trim();
    if (v.isEmpty()) {
      return null;
    }
    Duration delay;
    if (v.chars().allMatch(c -> c >= '0' && c <= '9')) {
      // More than 18 digits overflows a long; any such value means "longer than max".
      delay = v.length() > 18 ? max : Duration.ofSeconds(Long.parseLong(v));
    } else {
      try {
        Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        delay = Duration.between(now, at);
      } catch (DateTimeParseException e) {
        return null;
      }
    }
    if (delay.isNegative()) {
      return Duration.ZERO;
    }
    return delay.compareTo(max) > 0 ? max : delay;
  }
}
