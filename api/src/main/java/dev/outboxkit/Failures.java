package dev.outboxkit;

import dev.outboxkit.internal.LogText;

/** Turns exceptions into short, log-safe failure reasons. */
public final class Failures {
  /** Longest reason kept, in characters: {@value}. Longer ones are cut with an ellipsis. */
  public static final int MAX_REASON_LENGTH = 1000;

  private Failures() {}

  /**
   * Describes a failure as {@code SimpleClassName: message} (the first line only, with any other
   * control character shown as an escape such as {@code \r}, cut to {@link #MAX_REASON_LENGTH}),
   * skipping wrappers that add nothing to their cause. Transports should pass exceptions through
   * here rather than embedding payload text in reasons.
   *
   * @param failure the exception
   * @return a one-line reason
   */
  public static String describe(Throwable failure) {
    Throwable t = failure;
    // Skip wrappers that add nothing (no message, or the default "Class: message" of the cause).
    while (t.getCause() != null
        && (t.getMessage() == null || t.getMessage().equals(t.getCause().toString()))) {
      t = t.getCause();
    }
    String message = t.getMessage();
    String text =
        message == null
            ? t.getClass().getSimpleName()
            : t.getClass().getSimpleName() + ": " + LogText.escape(firstLine(message));
    return truncate(text);
  }

  /**
   * Cuts text to {@link #MAX_REASON_LENGTH} characters.
   *
   * @param text any text
   * @return the text, or its start followed by an ellipsis
   */
  public static String truncate(String text) {
    if (text.length() <= MAX_REASON_LENGTH) {
      return text;
    }
    int end = MAX_REASON_LENGTH - 1;
    // Never split a character outside the BMP: its lone half would be stored as '?'.
    if (Character.isHighSurrogate(text.charAt(end - 1))) {
      end--;
    }
    return text.substring(0, end) + "\u2026";
  }

  private static String firstLine(String message) {
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }
}
