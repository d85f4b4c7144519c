package dev.outboxkit.internal;

import dev.outboxkit.InvalidEventException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/**
 * Field checks for {@link dev.outboxkit.OutboxEvent.Builder}; each failure names the field and the
 * fix. The limits are here and published as {@code OutboxEvent}'s constants, which say why.
 *
 * <p>Every text field is stored in a text column and must come back unchanged from every supported
 * database, so text checks refuse what some database would change or refuse later, in the caller's
 * transaction: NUL (PostgreSQL refuses it and aborts the transaction, MariaDB stores it) and
 * unpaired surrogates (the drivers encode them as {@code ?}, so {@code o-}U+D800{@code -1} and
 * {@code o-}U+DC00{@code -1} would become the same aggregate). Lengths are counted in characters
 * (code points), as the columns count them, not in UTF-16 units. Values echoed in messages go
 * through {@link LogText}, so a refusal cannot forge a log line.
 */
public final class EventValidation {
  /** {@code OutboxEvent.MAX_FIELD_LENGTH}. */
  public static final int MAX_FIELD_LENGTH = 255;

  /** {@code OutboxEvent.EARLIEST_INSTANT}. */
  public static final Instant EARLIEST_INSTANT = Instant.parse("1000-01-01T00:00:00Z");

  /** {@code OutboxEvent.LATEST_INSTANT}. */
  public static final Instant LATEST_INSTANT = Instant.parse("9999-12-31T23:59:59.999999Z");

  /** {@code OutboxEvent.MAX_DELAY}. */
  public static final Duration MAX_DELAY = Duration.ofDays(36_500);

  private static final String TOKEN_SYMBOLS = "!#$%&'*+-.^_`|~";

  private EventValidation() {}

  /** Rejects null. */
  public static <T> T required(String field, T value) {
    if (value == null) {
      throw new InvalidEventException(field, field + " must not be null");
    }
    return value;
  }

  /** Rejects null, blank, over-long and unstorable identifier-like values. */
  public static String name(String field, String value) {
    return name(field, field, value);
  }

  /**
   * As {@link #name(String, String)}, for a value that is part of a field (a header name in {@code
   * headers}): the message names {@code what}, the exception {@code field}.
   */
  private static String name(String field, String what, String value) {
    if (value == null) {
      throw new InvalidEventException(field, what + " must not be null");
    }
    if (value.isBlank()) {
      throw new InvalidEventException(field, what + " must not be blank");
    }
    storable(field, what, value);
    int characters = value.codePointCount(0, value.length());
    if (characters > MAX_FIELD_LENGTH) {
      throw new InvalidEventException(
          field, what + " is " + characters + " characters long; the limit is " + MAX_FIELD_LENGTH);
    }
    return value;
  }

  /**
   * Accepts a media type as HTTP carries it in a header: printable ASCII only, so every transport
   * can deliver it (a line break would split a header, other characters have no charset there).
   */
  public static String contentType(String value) {
    name("contentType", value);
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c > 0x7e) {
        throw new InvalidEventException(
            "contentType",
            "contentType '"
                + LogText.escape(value)
                + "' has a character outside printable ASCII at index "
                + i
                + ": a media type such as \"application/json; charset=utf-8\" is plain ASCII"
                + " without line breaks or other control characters");
      }
    }
    return value;
  }

  /** Accepts HTTP tokens (RFC 9110), so the name is legal as a header on every transport. */
  public static String headerName(String name) {
    name("headers", "header name", name);
    if (!isToken(name)) {
      throw new InvalidEventException(
          "headers",
          "header name '"
              + LogText.escape(name)
              + "' is not a token: use letters, digits and "
              + TOKEN_SYMBOLS
              + " only");
    }
    return name;
  }

  /**
   * Whether a name is an HTTP token (RFC 9110): not empty, ASCII letters, digits and {@code
   * !#$%&'*+-.^_`|~} only.
   *
   * @param name the name, or null
   * @return true if legal as a header name
   */
  public static boolean isToken(String name) {
    if (name == null || name.isEmpty()) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || TOKEN_SYMBOLS.indexOf(c) >= 0;
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /**
   * Rejects values that could split a header (CR, LF), truncate it or fail to store (NUL), or not
   * survive storage (an unpaired surrogate).
   */
  public static String headerValue(String name, String value) {
    String shown = LogText.escape(name);
    if (value == null) {
      throw new InvalidEventException("headers", "header '" + shown + "' has a null value");
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\r' || c == '\n' || c == '\0') {
        throw new InvalidEventException(
            "headers",
            "header '" + shown + "' contains a line break or NUL; encode the value first");
      }
    }
    storable("headers", "header '" + shown + "'", value);
    return value;
  }

  /**
   * Rejects a delay longer than {@link OutboxEvent#MAX_DELAY}: the database adds it to its own
   * time, and the sum must stay within the columns' range on every database.
   */
  public static Duration delay(Duration delay) {
    required("delay", delay);
    if (delay.isNegative()) {
      throw new InvalidEventException("delay", "delay must not be negative, was " + delay);
    }
    if (delay.compareTo(MAX_DELAY) > 0) {
      throw new InvalidEventException(
          "delay",
          "delay is "
              + delay
              + "; the limit is OutboxEvent.MAX_DELAY, "
              + MAX_DELAY.toDays()
              + " days (about 100 years). An event that should never be sent is not appended");
    }
    return delay;
  }

  /**
   * Rejects an instant outside {@link OutboxEvent#EARLIEST_INSTANT} to {@link
   * OutboxEvent#LATEST_INSTANT}, the range every supported database stores; compared at the
   * microsecond precision it is stored with.
   */
  public static Instant instant(String field, Instant value) {
    required(field, value);
    Instant stored = value.truncatedTo(ChronoUnit.MICROS);
    if (stored.isBefore(EARLIEST_INSTANT) || stored.isAfter(LATEST_INSTANT)) {
      throw new InvalidEventException(
          field,
          field
              + " is "
              + value
              + "; it must lie between OutboxEvent.EARLIEST_INSTANT ("
              + EARLIEST_INSTANT
              + ") and OutboxEvent.LATEST_INSTANT ("
              + LATEST_INSTANT
              + "), the range every supported database stores");
    }
    return stored;
  }

  /** Rejects NUL and unpaired surrogates, which no database stores unchanged. */
  private static void storable(String field, String what, String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\0') {
        throw new InvalidEventException(
            field,
            what
                + " contains NUL (U+0000) at index "
                + i
                + ", which the databases refuse or keep differently; remove or encode it");
      }
      if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c)
            && i + 1 < value.length()
            && Character.isLowSurrogate(value.charAt(i + 1))) {
          i++; // a well-formed pair: one character outside the BMP
          continue;
        }
        throw new InvalidEventException(
            field,
            what
                + " contains an unpaired surrogate (U+"
                + Integer.toHexString(c).toUpperCase(Locale.ROOT)
                + ") at index "
                + i
                + ", which is stored as '?', so different values would become one; pass"
                + " well-formed text");
      }
    }
  }
}
