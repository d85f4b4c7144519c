package dev.outboxkit.debezium.internal;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the outbox table's {@code headers} column: a flat JSON object of strings, such as {@code
 * {"traceparent":"00-…","correlation-id":"c-1"}}, or NULL / blank for none.
 *
 * <p>{@code outboxkit-jdbc} writes the column and reads it back for the relay; this module runs
 * inside Kafka Connect, where that jar has no business, so it reads the same format itself. It
 * yields what the relay's reader yields for every column the library writes: entries in column
 * order, a repeated name keeping its last value, the usual JSON escapes (four-digit unicode escapes
 * included, a surrogate pair as two of them) and whitespace between tokens.
 */
public final class HeadersColumn {
  private final String text;
  private int pos;

  private HeadersColumn(String text) {
    this.text = text;
  }

  /**
   * Parses the column's value.
   *
   * @param column the column text; null or blank means no headers
   * @return the headers in column order; empty for none
   * @throws IllegalArgumentException if the text is not a JSON object whose values are all strings
   */
  public static Map<String, String> parse(String column) {
    if (column == null || column.isBlank()) {
      return Collections.emptyMap();
    }
    return new HeadersColumn(column).object();
  }

  private Map<String, String> object() {
    Map<String, String> headers = new LinkedHashMap<>();
    skipBlanks();
    take('{');
    skipBlanks();
    if (next() == '}') {
      pos++;
    } else {
      while (true) {
        String name = string();
        skipBlanks();
        take(':');
        skipBlanks();
        headers.put(name, string());
        skipBlanks();
        char c = next();
        pos++;
        if (c == '}') {
          break;
        }
        if (c != ',') {
          throw fail("',' or '}' expected");
        }
        skipBlanks();
      }
    }
    skipBlanks();
    if (pos < text.length()) {
      throw fail("nothing may follow the object");
    }
    return headers;
  }

  private String string() {
    take('"');
    StringBuilder value = new StringBuilder();
    while (true) {
      char c = next();
      pos++;
      if (c == '"') {
        return value.toString();
      }
      if (c == '\\') {
        value.append(escape());
      } else {
        value.append(c);
      }
    }
  }

  private char escape() {
    char c = next();
    pos++;
    switch (c) {
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'u':
        if (pos + 4 > text.length()) {
          throw fail("four hex digits expected after \\u");
        }
        try {
          char unit = (char) Integer.parseInt(text.substring(pos, pos + 4), 16);
          pos += 4;
          return unit;
        } catch (NumberFormatException e) {
          throw fail("four hex digits expected after \\u");
        }
      default:
        return c; // \" \\ \/ stand for themselves
    }
  }

  private void take(char expected) {
    if (next() != expected) {
      throw fail("'" + expected + "' expected");
    }
    pos++;
  }

  private char next() {
    if (pos >= text.length()) {
      throw fail("the text ends early");
    }
    return text.charAt(pos);
  }

  private void skipBlanks() {
    while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
      pos++;
    }
  }

  // The message names the position only: header values may be secrets, and errors end up in logs.
  private IllegalArgumentException fail(String what) {
    return new IllegalArgumentException(
        "headers column is not a JSON object of strings: " + what + " at character " + pos);
  }
}
