package dev.outboxkit.internal;

/**
 * The one home for making text safe to put in a log line or an exception message. Values that reach
 * a log line can come from rows written by other tools (raw SQL, a migration, another service), so
 * an aggregate id or a header name may hold a line break: printed raw, it would start a new line
 * that reads like one from another component (log forging). Here every character that could end a
 * line, hide text or reorder it on screen is shown as a visible escape instead.
 *
 * <p>Escaped: the C0 and C1 control characters and DEL (CR, LF and TAB as {@code \r}, {@code \n},
 * {@code \t}, the others as {@code \}{@code uXXXX}), the Unicode line and paragraph separators
 * (U+2028, U+2029), the bidirectional formatting characters (which can make a line read differently
 * from what it holds), and unpaired surrogates (which encoders turn into {@code ?}). Everything
 * else, letters of any script and emoji included, is kept. A backslash is kept as it is, so
 * escaping escaped text changes nothing; the result is for people to read, not to parse back.
 */
public final class LogText {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private LogText() {}

  /**
   * The text with every character that could forge or disguise a log line escaped.
   *
   * @param text any text, or null
   * @return the text itself when nothing needed escaping; {@code "null"} for null
   */
  public static String escape(CharSequence text) {
    if (text == null) {
      return "null";
    }
    int n = text.length();
    int first = 0;
    while (first < n && isSafe(text, first)) {
      first++;
    }
    if (first == n) {
      return text.toString();
    }
    StringBuilder out = new StringBuilder(n + 16);
    out.append(text, 0, first);
    for (int i = first; i < n; i++) {
      char c = text.charAt(i);
      if (isSafe(text, i)) {
        out.append(c);
      } else if (c == '\r') {
        out.append("\\r");
      } else if (c == '\n') {
        out.append("\\n");
      } else if (c == '\t') {
        out.append("\\t");
      } else {
        out.append("\\u")
            .append(HEX[(c >> 12) & 0xF])
            .append(HEX[(c >> 8) & 0xF])
            .append(HEX[(c >> 4) & 0xF])
            .append(HEX[c & 0xF]);
      }
    }
    return out.toString();
  }

  private static boolean isSafe(CharSequence text, int i) {
    char c = text.charAt(i);
    if (Character.isISOControl(c)) {
      return false;
    }
    if (Character.isHighSurrogate(c)) {
      return i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1));
    }
    if (Character.isLowSurrogate(c)) {
      return i > 0 && Character.isHighSurrogate(text.charAt(i - 1));
    }
    return !isLineOrDirectionControl(c);
  }

  private static boolean isLineOrDirectionControl(char c) {
    switch (c) {
      case '\u2028': // line separator
      case '\u2029': // paragraph separator
      case '\u061C': // Arabic letter mark
      case '\u200E': // left-to-right mark
      case '\u200F': // right-to-left mark
        return true;
      default:
        // Embeddings and overrides (U+202A..U+202E), isolates (U+2066..U+2069).
        return (c >= '\u202A' && c <= '\u202E') || (c >= '\u2066' && c <= '\u2069');
    }
  }
}
