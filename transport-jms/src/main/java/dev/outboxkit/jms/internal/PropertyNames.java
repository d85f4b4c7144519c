package dev.outboxkit.jms.internal;

import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The reversible mapping between event header names (HTTP tokens) and JMS property names. The rules
 * are documented in {@link dev.outboxkit.jms.JmsEvents}; this is their single implementation.
 *
 * <p>Why it is needed: a JMS property name must be a Java identifier that is not a message-selector
 * keyword and does not start with {@code JMS} (reserved for headers, {@code JMSX} properties and
 * provider properties), while header names may contain {@code -}, {@code .} and other symbols, or
 * start with a digit. Why this form: {@code -} is by far the most common symbol in header names, so
 * it gets the readable {@code _}; every other character outside {@code [A-Za-z0-9]} (including
 * {@code _} and {@code $} themselves) becomes {@code $} and two hex digits, so the two escape
 * characters never occur literally and decoding is unambiguous.
 */
public final class PropertyNames {
  /** Message-selector keywords; JMS forbids them as property names, in any letter case. */
  private static final Set<String> SELECTOR_KEYWORDS =
      Set.of("NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE");

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private PropertyNames() {}

  /**
   * Maps a header name to its property name.
   *
   * @param header an HTTP token (letters, digits and {@code !#$%&'*+-.^_`|~}), as every event
   *     header name is
   * @return a legal JMS property name, different for every different header name
   * @throws IllegalArgumentException if the name is empty or has characters outside ASCII
   */
  public static String encode(String header) {
    if (header == null || header.isEmpty()) {
      throw new IllegalArgumentException("header name must not be empty");
    }
    StringBuilder out = new StringBuilder(header.length() + 8);
    for (int i = 0; i < header.length(); i++) {
      char c = header.charAt(i);
      if (c > 0x7e || c < 0x21) {
        throw new IllegalArgumentException(
            "header name '" + header + "' has a character outside printable ASCII at index " + i);
      }
      if (isLetter(c) || (isDigit(c) && i > 0)) {
        out.append(c);
      } else if (c == '-') {
        out.append('_');
      } else {
        escape(out, c); // symbols, and a leading digit (identifiers cannot start with one)
      }
    }
    String name = out.toString();
    // Only a name that starts with a letter can be a keyword or start with "JMS"; escaping its
    // first letter keeps it reversible and makes it legal.
    if (isLetter(name.charAt(0))
        && (SELECTOR_KEYWORDS.contains(name.toUpperCase(Locale.ROOT))
            || name.regionMatches(true, 0, "JMS", 0, 3))) {
      StringBuilder escaped = new StringBuilder(name.length() + 2);
      escape(escaped, name.charAt(0));
      return escaped.append(name, 1, name.length()).toString();
    }
    return name;
  }

  /**
   * Maps a property name back to the header name it came from.
   *
   * @param property any property name
   * @return the header name, or empty if {@link #encode} never produces this property name (it was
   *     set by someone else, or is one of the transport's own)
   */
  public static Optional<String> decode(String property) {
    if (property == null || property.isEmpty()) {
      return Optional.empty();
    }
    StringBuilder out = new StringBuilder(property.length());
    for (int i = 0; i < property.length(); i++) {
      char c = property.charAt(i);
      if (isLetter(c) || isDigit(c)) {
        out.append(c);
      } else if (c == '_') {
        out.append('-');
      } else if (c == '$' && hex(property, i + 1) >= 0) {
        out.append((char) hex(property, i + 1));
        i += 2;
      } else {
        return Optional.empty();
      }
    }
    String header = out.toString();
    // Only canonical forms count: "$61" decodes to "a", but encode("a") is "a", not "$61".
    return encode(header).equals(property) ? Optional.of(header) : Optional.empty();
  }

  private static void escape(StringBuilder out, char c) {
    out.append('$').append(HEX[(c >> 4) & 0xf]).append(HEX[c & 0xf]);
  }

  /** The byte value of two upper-case hex digits at {@code from}, or -1. */
  private static int hex(String s, int from) {
    if (from + 1 >= s.length()) {
      return -1;
    }
    int hi = hexDigit(s.charAt(from));
    int lo = hexDigit(s.charAt(from + 1));
    int value = hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
    return value >= 0x21 && value <= 0x7e ? value : -1;
  }

  private static int hexDigit(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }

  private static boolean isLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }
}
