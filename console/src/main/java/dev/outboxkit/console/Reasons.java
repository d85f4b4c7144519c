package dev.outboxkit.console;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Folds a failure's text into its group: what varies between events failing for the same reason
 * (URLs, ids, times, counts) becomes a placeholder, so "HTTP 503 from https://crm/orders/4711" and
 * ".../4712" are one group. HTTP status codes are kept: a 503 and a 400 are different reasons.
 */
final class Reasons {
  static final int MAX_LENGTH = 200;

  /** A URL, less the punctuation that ends the sentence around it. */
  private static final Pattern URL =
      Pattern.compile("\\b[a-zA-Z][a-zA-Z0-9+.-]*://\\S*[^\\s.,;:!?)\\]'\"]");

  private static final Pattern UUID =
      Pattern.compile(
          "\\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\b");
  private static final Pattern TIME =
      Pattern.compile(
          "\\b\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})?");
  private static final Pattern HEX =
      Pattern.compile("\\b(0x)?(?=[0-9a-fA-F]*\\d)[0-9a-fA-F]{12,}\\b");
  private static final Pattern STATUS =
      Pattern.compile("(?i)\\b(HTTP|status|code)(\\s*:?\\s*)([1-5]\\d\\d)\\b");
  private static final Pattern NUMBER = Pattern.compile("\\d+(\\.\\d+)?");

  private Reasons() {}

  /** {@return the group of a failure's text; "(no reason recorded)" for none} */
  static String group(String error) {
    if (error == null || error.isBlank()) {
      return "(no reason recorded)";
    }
    String s = URL.matcher(error).replaceAll("<url>");
    s = UUID.matcher(s).replaceAll("<id>");
    s = TIME.matcher(s).replaceAll("<time>");
    s = HEX.matcher(s).replaceAll("<id>");
    s = keepStatusCodes(s);
    s = s.replaceAll("\\s+", " ").trim();
    return s.length() <= MAX_LENGTH ? s : s.substring(0, MAX_LENGTH) + "…";
  }

  /** Numbers become {@code #}, except the status code after "HTTP", "status" or "code". */
  private static String keepStatusCodes(String s) {
    Matcher m = STATUS.matcher(s);
    StringBuilder out = new StringBuilder(s.length());
    int at = 0;
    while (m.find()) {
      out.append(NUMBER.matcher(s.substring(at, m.start(3))).replaceAll("#"));
      out.append(m.group(3));
      at = m.end(3);
    }
    out.append(NUMBER.matcher(s.substring(at)).replaceAll("#"));
    return out.toString();
  }
}
