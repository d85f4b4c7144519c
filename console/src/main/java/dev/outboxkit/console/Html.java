package dev.outboxkit.console;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.owasp.encoder.Encode;

/**
 * An HTML page being written. Every value goes through the OWASP encoder for the context it lands
 * in ({@link #text}, {@link #attr}, {@link #query}); markup is only ever the console's own
 * constants. Values longer than {@link #MAX_SHOWN} characters are cut, so a hostile
 * 10,000-character event type neither breaks the layout nor slows the page.
 */
final class Html {
  static final int MAX_SHOWN = 300;

  private final StringBuilder out = new StringBuilder(8192);
  private final String base;

  /**
   * @param base the console's mount path, every link starts with it
   */
  Html(String base, String title) {
    this.base = base;
    out.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<meta name=\"viewport\" content=\"width=device-width\">")
        .append("<title>")
        .append(Encode.forHtml(title))
        .append(" · OutboxKit</title><link rel=\"stylesheet\" href=\"")
        .append(Encode.forHtmlAttribute(base + "/assets/console.css"))
        .append("\"></head><body><nav><a href=\"")
        .append(Encode.forHtmlAttribute(base + "/"))
        .append("\">Overview</a><a href=\"")
        .append(Encode.forHtmlAttribute(base + "/failures"))
        .append("\">Failures</a><a href=\"")
        .append(Encode.forHtmlAttribute(base + "/audit"))
        .append("\">Audit</a>")
        .append("<form method=\"get\" action=\"")
        .append(Encode.forHtmlAttribute(base + "/aggregates"))
        .append(
            "\" class=\"find\"><input name=\"type\" placeholder=\"aggregate type\" aria-label=\"aggregate type\">")
        .append("<input name=\"id\" placeholder=\"aggregate id\" aria-label=\"aggregate id\">")
        .append("<button type=\"submit\">Find aggregate</button></form></nav><main><h1>")
        .append(Encode.forHtml(title))
        .append("</h1>");
  }

  /** Raw markup: only ever a constant of the console's own. */
  Html tag(String markup) {
    out.append(markup);
    return this;
  }

  /** Text content, escaped and cut to {@link #MAX_SHOWN} characters. */
  Html text(String value) {
    out.append(Encode.forHtml(shown(value)));
    return this;
  }

  /** Text content, escaped, not cut (for payloads, which the caller caps). */
  Html fullText(String value) {
    out.append(Encode.forHtml(value));
    return this;
  }

  Html text(long value) {
    out.append(value);
    return this;
  }

  /** An element with escaped text: {@code el("td", value)}. */
  Html el(String tag, String value) {
    return tag("<" + tag + ">").text(value).tag("</" + tag + ">");
  }

  /** An attribute value, escaped, inside double quotes the caller wrote. */
  Html attr(String value) {
    out.append(Encode.forHtmlAttribute(value));
    return this;
  }

  /** A link below the console with query parameters, each encoded. */
  Html link(String path, Map<String, String> query, String label) {
    out.append("<a href=\"").append(Encode.forHtmlAttribute(url(path, query))).append("\">");
    return text(label).tag("</a>");
  }

  /** A URL below the console with query parameters, each encoded; null values left out. */
  String url(String path, Map<String, String> query) {
    return url(base, path, query);
  }

  /** A URL below the console mounted at {@code base}, with query parameters, each encoded. */
  static String url(String base, String path, Map<String, String> query) {
    StringBuilder u = new StringBuilder(base).append(path);
    char sep = '?';
    for (Map.Entry<String, String> e : query.entrySet()) {
      if (e.getValue() != null) {
        u.append(sep).append(Encode.forUriComponent(e.getKey())).append('=');
        u.append(Encode.forUriComponent(e.getValue()));
        sep = '&';
      }
    }
    return u.toString();
  }

  /** A hidden form field. */
  Html hidden(String name, String value) {
    if (value == null) {
      return this;
    }
    return tag("<input type=\"hidden\" name=\"")
        .attr(name)
        .tag("\" value=\"")
        .attr(value)
        .tag("\">");
  }

  String base() {
    return base;
  }

  String finish() {
    return out.append("</main></body></html>").toString();
  }

  static String shown(String value) {
    if (value == null) {
      return "";
    }
    return value.length() <= MAX_SHOWN
        ? value
        : value.substring(0, MAX_SHOWN) + "… (" + value.length() + " characters)";
  }

  /** A duration as an operator reads it: 3 h 12 min, 45 s, 120 ms. */
  static String duration(Duration d) {
    if (d == null) {
      return "—";
    }
    long s = d.getSeconds();
    if (s >= 86_400) {
      return s / 86_400 + " d " + (s % 86_400) / 3600 + " h";
    }
    if (s >= 3600) {
      return s / 3600 + " h " + (s % 3600) / 60 + " min";
    }
    if (s >= 60) {
      return s / 60 + " min" + (s % 60 == 0 ? "" : " " + s % 60 + " s");
    }
    if (s >= 1) {
      return s + " s";
    }
    return d.toMillis() + " ms";
  }

  static String instant(Instant t) {
    return t == null ? "—" : t.toString();
  }
}
