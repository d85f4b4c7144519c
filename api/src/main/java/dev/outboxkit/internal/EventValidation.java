package dev.outboxkit.internal;

import dev.outboxkit.InvalidEventException;
import dev.outboxkit.OutboxEvent;

/** Field checks for {@link OutboxEvent.Builder}; each failure names the field and the fix. */
public final class EventValidation {
  private static final String TOKEN_SYMBOLS = "!#$%&'*+-.^_`|~";

  private EventValidation() {}

  /** Rejects null. */
  public static <T> T required(String field, T value) {
    if (value == null) {
      throw new InvalidEventException(field, field + " must not be null");
    }
    return value;
  }

  /** Rejects null, blank and over-long identifier-like values. */
  public static String name(String field, String value) {
    required(field, value);
    if (value.isBlank()) {
      throw new InvalidEventException(field, field + " must not be blank");
    }
    if (value.length() > OutboxEvent.MAX_FIELD_LENGTH) {
      throw new InvalidEventException(
          field,
          field
              + " is "
              + value.length()
              + " characters long; the limit is "
              + OutboxEvent.MAX_FIELD_LENGTH);
    }
    return value;
  }

  /** Accepts HTTP tokens (RFC 9110), so the name is legal as a header on every transport. */
  public static String headerName(String name) {
    name("header name", name);
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || TOKEN_SYMBOLS.indexOf(c) >= 0;
      if (!ok) {
        throw new InvalidEventException(
            "headers",
            "header name '"
                + name
                + "' is not a token: use letters, digits and "
                + TOKEN_SYMBOLS
                + " only");
      }
    }
    return name;
  }

  /** Rejects values that could split a header (CR, LF) or truncate it (NUL). */
  public static String headerValue(String name, String value) {
    if (value == null) {
      throw new InvalidEventException("headers", "header '" + name + "' has a null value");
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\r' || c == '\n' || c == '\0') {
        throw new InvalidEventException(
            "headers",
            "header '" + name + "' contains a line break or NUL; encode the value first");
      }
    }
    return value;
  }
}
