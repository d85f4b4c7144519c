package dev.outboxkit.jdbc.internal;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Stores headers as a flat JSON object of strings ({@code {"a":"1","b":"2"}}), readable in SQL
 * tools and by CDC pipelines. Hand-written to keep the library free of JSON dependencies; it reads
 * exactly what it writes plus any standard JSON object of string values.
 */
final class HeadersCodec {
  private HeadersCodec() {}

  /** Encodes headers; null for none, so empty header sets cost no storage. */
  public static String encode(Map<String, String> headers) {
    if (headers.isEmpty()) {
      return null;
    }
    StringBuilder json = new StringBuilder(32 * headers.size());
    json.append('{');
    boolean first = true;
    for (Map.Entry<String, String> e : headers.entrySet()) {
      if (!first) {
        json.append(',');
      }
      first = false;
      quote(json, e.getKey());
      json.append(':');
      quote(json, e.getValue());
    }
    return json.append('}').toString();
  }

  /**
   * Decodes what {@link #encode} wrote.
   *
   * @throws IllegalArgumentException if the text is not a JSON object of strings
   */
  public static Map<String, String> decode(String json) {
    if (json == null || json.isBlank()) {
      return Collections.emptyMap();
    }
    return new Parser(json).object();
  }

  private static void quote(StringBuilder out, String s) {
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
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
      }
    }
    out.append('"');
  }

  private static final class Parser {
    private final String s;
    private int i;

    Parser(String s) {
      this.s = s;
    }

    Map<String, String> object() {
      Map<String, String> map = new LinkedHashMap<>();
      expect('{');
      if (peek() == '}') {
        i++;
      } else {
        do {
          String key = string();
          expect(':');
          map.put(key, string());
        } while (consumeComma());
        expect('}');
      }
      skipSpace();
      if (i != s.length()) {
        throw error("trailing characters");
      }
      return map;
    }

    private boolean consumeComma() {
      if (peek() == ',') {
        i++;
        return true;
      }
      return false;
    }

    private String string() {
      expect('"');
      StringBuilder out = new StringBuilder();
      while (true) {
        if (i >= s.length()) {
          throw error("unterminated string");
        }
        char c = s.charAt(i++);
        if (c == '"') {
          return out.toString();
        }
        if (c != '\\') {
          out.append(c);
          continue;
        }
        if (i >= s.length()) {
          throw error("unterminated escape");
        }
        char e = s.charAt(i++);
        switch (e) {
          case 'n':
            out.append('\n');
            break;
          case 'r':
            out.append('\r');
            break;
          case 't':
            out.append('\t');
            break;
          case 'b':
            out.append('\b');
            break;
          case 'f':
            out.append('\f');
            break;
          case 'u':
            if (i + 4 > s.length()) {
              throw error("short unicode escape");
            }
            out.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
            i += 4;
            break;
          default:
            out.append(e); // \" \\ \/
        }
      }
    }

    private char peek() {
      skipSpace();
      if (i >= s.length()) {
        throw error("unexpected end");
      }
      return s.charAt(i);
    }

    private void expect(char c) {
      if (peek() != c) {
        throw error("expected '" + c + "'");
      }
      i++;
    }

    private void skipSpace() {
      while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
        i++;
      }
    }

    private IllegalArgumentException error(String what) {
      return new IllegalArgumentException(
          "headers column is not a JSON object of strings: " + what + " at " + i);
    }
  }
}
