package dev.outboxkit.jdbc.internal;

import dev.outboxkit.Failures;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * The note a relay leaves on an event it holds back because its destination said it was down: when
 * the relay first met the outage and the destination's answer. Operators' views find held events by
 * the note's prefix and read the outage's start from it, so both are written here only.
 */
public final class HoldNote {
  /** What every hold note starts with; a LIKE pattern by appending {@code %}. */
  public static final String PREFIX = "destination down since ";

  private HoldNote() {}

  /** {@return the note, cut to the error column's length} */
  static String of(Instant since, String reason) {
    return Failures.truncate(PREFIX + since + ": " + reason);
  }

  /** {@return when the outage began, or null if the text is not a hold note} */
  public static Instant since(String note) {
    if (note == null || !note.startsWith(PREFIX)) {
      return null;
    }
    int end = note.indexOf(": ", PREFIX.length());
    if (end < 0) {
      return null;
    }
    try {
      return Instant.parse(note.substring(PREFIX.length(), end));
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
