package dev.outboxkit.console;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A user of the console over HTTP, signed in with Basic auth, as a script or a browser would be.
 */
final class ConsoleClient {
  private static final Pattern TOKEN = Pattern.compile("\"csrfToken\":\"([^\"]+)\"");

  private final HttpClient http = HttpClient.newHttpClient();
  private final String base;
  private final String authorization;

  ConsoleClient(String base, String user, String password) {
    this.base = base;
    this.authorization =
        user == null
            ? null
            : "Basic "
                + Base64.getEncoder()
                    .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A form POST as a browser sends it: with the console's own origin unless told otherwise. */
  HttpResponse<String> post(String path, Map<String, String> form, String origin)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        request(path)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(encode(form)));
    if (origin != null) {
      b.header("Origin", origin);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  String origin() {
    URI u = URI.create(base);
    return u.getScheme() + "://" + u.getHost() + ":" + u.getPort();
  }

  /** {@return this user's CSRF token, as the JSON API hands it out} */
  String token() throws IOException, InterruptedException {
    Matcher m = TOKEN.matcher(get("/api/overview").body());
    if (!m.find()) {
      throw new AssertionError("no csrfToken in /api/overview");
    }
    return m.group(1);
  }

  static Map<String, String> form(String... pairs) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      m.put(pairs[i], pairs[i + 1]);
    }
    return m;
  }

  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path));
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return b;
  }

  private static String encode(Map<String, String> form) {
    StringBuilder s = new StringBuilder();
    form.forEach(
        (k, v) ->
            s.append(s.length() == 0 ? "" : "&")
                .append(URLEncoder.encode(k, StandardCharsets.UTF_8))
                .append('=')
                .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
    return s.toString();
  }
}
