package dev.outboxkit.http.internal;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;

/** Rules for the HTTP headers a webhook request carries. */
public final class HeaderValues {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();
  private static final String TOKEN_SYMBOLS = "!#$%&'*+-.^_`|~";

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
   * Whether a name is an HTTP token (RFC 9110).
   *
   * @param name the name
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
   * Makes a value safe for an HTTP header. Plain values go unchanged; otherwise every character
   * outside printable ASCII is percent-encoded as UTF-8 (RFC 3986 style), because HTTP header
   * values have no reliable charset beyond ASCII and the JDK client refuses them.
   *
   * @param value any text
   * @return the value, or its encoded form
   */
  public static String encode(String value) {
    if (isPlain(value)) {
      return value;
    }
    StringBuilder sb = new StringBuilder(value.length() + 16);
    for (int i = 0; i < value.length(); ) {
      int cp = value.codePointAt(i);
      int len = Character.charCount(cp);
      if ((cp >= 0x20 && cp <= 0x7e) || cp == '\t') {
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
}
