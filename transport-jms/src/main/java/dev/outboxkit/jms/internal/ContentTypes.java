package dev.outboxkit.jms.internal;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;

/** What a content type says of how a payload is sent and read as text. */
public final class ContentTypes {
  private ContentTypes() {}

  /**
   * The charset of a textual content type: {@code text/*}, JSON, XML, YAML and JavaScript types
   * (including {@code +json} and {@code +xml} suffixes), with the {@code charset} parameter if
   * given, else UTF-8.
   *
   * @param contentType a media type, possibly with parameters
   * @return the charset, or empty for a type that is not textual or names an unknown charset
   */
  public static Optional<Charset> textCharset(String contentType) {
    String[] parts = contentType.split(";");
    String mime = parts[0].strip().toLowerCase(Locale.ROOT);
    boolean text =
        mime.startsWith("text/")
            || mime.equals("application/json")
            || mime.endsWith("+json")
            || mime.equals("application/xml")
            || mime.endsWith("+xml")
            || mime.equals("application/yaml")
            || mime.equals("application/x-yaml")
            || mime.equals("application/javascript");
    if (!text) {
      return Optional.empty();
    }
    for (int i = 1; i < parts.length; i++) {
      String p = parts[i].strip();
      int eq = p.indexOf('=');
      if (eq > 0 && p.substring(0, eq).strip().equalsIgnoreCase("charset")) {
        String name = p.substring(eq + 1).strip();
        if (name.length() >= 2 && name.startsWith("\"") && name.endsWith("\"")) {
          name = name.substring(1, name.length() - 1);
        }
        try {
          return Optional.of(Charset.forName(name));
        } catch (IllegalArgumentException e) {
          return Optional.empty(); // unknown or illegal charset name: keep the bytes as they are
        }
      }
    }
    return Optional.of(StandardCharsets.UTF_8);
  }
}
