package dev.outboxkit.console;

import java.time.Instant;
import java.util.Optional;

/**
 * A JSON document being written, in order: objects, arrays, names and values. Strings are escaped
 * per RFC 8259, and {@code <}, {@code >}, {@code &} and the line separators as {@code \\u} escapes,
 * so a response is inert even if a browser is tricked into reading it as HTML or script.
 */
final class Json {
  private final StringBuilder out = new StringBuilder(4096);
  private boolean needComma;

  Json begin() {
    comma();
    out.append('{');
    needComma = false;
    return this;
  }

  Json end() {
    out.append('}');
    needComma = true;
    return this;
  }

  Json array(String name) {
    name(name);
    out.append('[');
    needComma = false;
    return this;
  }

  Json endArray() {
    out.append(']');
    needComma = true;
    return this;
  }

  Json field(String name, String value) {
    name(name);
    string(value);
    return this;
  }

  Json field(String name, Optional<String> value) {
    return field(name, value.orElse(null));
  }

  Json field(String name, long value) {
    name(name);
    out.append(value);
    needComma = true;
    return this;
  }

  /** A number, or null. */
  Json number(String name, Long value) {
    name(name);
    out.append(value == null ? "null" : value.toString());
    needComma = true;
    return this;
  }

  Json field(String name, double value) {
    name(name);
    out.append(Double.isFinite(value) ? Double.toString(value) : "null");
    needComma = true;
    return this;
  }

  Json field(String name, boolean value) {
    name(name);
    out.append(value);
    needComma = true;
    return this;
  }

  Json field(String name, Instant value) {
    return field(name, value == null ? null : value.toString());
  }

  /** A string element of an array. */
  Json value(String value) {
    comma();
    string(value);
    return this;
  }

  private void name(String name) {
    comma();
    string(name);
    out.append(':');
    needComma = false;
  }

  private void comma() {
    if (needComma) {
      out.append(',');
    }
  }

  private void string(String s) {
    if (s == null) {
      out.append("null");
      needComma = true;
      return;
    }
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case '\n':
          out.append("\\n");
          break;
        case '\r':
          out.append("\\r");
          break;
        case '\t':
          out.append("\\t");
          break;
        default:
          if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == '\u2028' || c == '\u2029') {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
      }
    }
    out.append('"');
    needComma = true;
  }

  @Override
  public String toString() {
    return out.toString();
  }
}
