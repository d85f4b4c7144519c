package dev.outboxkit.http.internal;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;

/** Rules for the HTTP headers a webhook request carries. */
public final class HeaderValues {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  /**
   * Names the transport sets itself or the HTTP client manages; events and endpoints may not set
   * them. The {@code webhook-}, {@code svix-} and {@code outbox-} prefixes are reserved as a whole.
   */
  private static final Set<String> RESERVED =
      Set.of(
          "content-type",
          "content-length",
          "content-encoding",
          "transfer-encoding",
          "connection",
          "keep-alive",
          "proxy-connection",
          "upgrade",
          "http2-settings",
          "te",
          "trailer",
          "expect",
          "host");

  private HeaderValues() {}

  /**
   * Whether a header name is reserved.
   *
   * @param name any case
   * @return true if neither an event nor an endpoint may set it
   */
  public static boolean isReserved(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    return RESERVED.contains(n)
        || n.startsWith("webhook-")
        || n.startsWith("svix-")
        || n.startsWith("outbox-");
  }

  /**
   * Whether a value can go on the wire unchanged: printable ASCII, space and tab.
   *
   * @param value the value
   * @return true if no encoding is needed
   */
  public static boolean isPlain(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if ((c < 0x20 && c != '\t') || c > 0x7e) {
        return false;
      }
    }
    return true;
  }

  /**
   * Makes a value safe for an HTTP header, reversibly ({@link #decode} undoes it). Every character
   * outside printable ASCII is percent-encoded as UTF-8 (RFC 3986 style), because HTTP header
   * values have no reliable charset beyond ASCII and the JDK client refuses them; {@code %} itself
   * becomes {@code %25}, so that a literal {@code %E2%9C%93} and an encoded {@code ✓} differ on the
   * wire. Printable ASCII without {@code %} goes unchanged.
   *
   * @param value any text
   * @return the value, or its encoded form
   */
  public static String encode(String value) {
    if (isPlain(value) && value.indexOf('%') < 0) {
      return value;
    }
    StringBuilder sb = new StringBuilder(value.length() + 16);
    for (int i = 0; i < value.length(); ) {
      int cp = value.codePointAt(i);
      int len = Character.charCount(cp);
      if (((cp >= 0x20 && cp <= 0x7e) || cp == '\t') && cp != '%') {
        sb.append((char) cp);
      } else {
        for (byte b : value.substring(i, i + len).getBytes(StandardCharsets.UTF_8)) {
          sb.append('%').append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
        }
      }
      i += len;
    }
    return sb.toString();
  }

  /**
   * Undoes {@link #encode}: every {@code %XX} (two hex digits, any case) is a byte, and each run of
   * such bytes is read as UTF-8. Lenient with what {@code encode} never makes, since a receiver may
   * also see values from other senders: a {@code %} not followed by two hex digits stays as it is,
   * and bytes that are not UTF-8 become U+FFFD.
   *
   * @param value a header value as received
   * @return the original text
   */
  public static String decode(String value) {
    int first = value.indexOf('%');
    if (first < 0) {
      return value;
    }
    StringBuilder sb = new StringBuilder(value.length());
    sb.append(value, 0, first);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int i = first;
    while (i < value.length()) {
      char c = value.charAt(i);
      int hi = c == '%' ? hex(value, i + 1) : -1;
      int lo = hi >= 0 ? hex(value, i + 2) : -1;
      if (hi >= 0 && lo >= 0) {
        bytes.write((hi << 4) | lo);
        i += 3;
        continue;
      }
      flush(bytes, sb);
      sb.append(c);
      i++;
    }
    flush(bytes, sb);
    return sb.toString();
  }

  /** The value of an ASCII hex digit (Character.digit would also take other scripts' digits). */
  private static int hex(String s, int at) {
    if (at >= s.length()) {
      return -1;
    }
    char c = s.charAt(at);
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  }

  private static void flush(ByteArrayOutputStream bytes, StringBuilder sb) {
    if (bytes.size() > 0) {
      // new String(byte[], UTF_8) replaces malformed input with U+FFFD; it never throws.
      sb.append(new String(bytes.toByteArray(), StandardCharsets.UTF_8));
      bytes.reset();
    }
  }
}
