package dev.outboxkit.http.internal;

import java.net.URI;

/** Endpoint URLs as shown in logs and failure reasons. */
public final class Urls {
  private Urls() {}

  /**
   * Shows scheme, host, port and path; a query string is replaced by {@code ?…} because it often
   * carries an access token. (User info is refused when an endpoint is configured.)
   *
   * @param url an endpoint URL
   * @return a log-safe rendering
   */
  public static String display(URI url) {
    StringBuilder sb = new StringBuilder();
    sb.append(url.getScheme()).append("://").append(url.getHost());
    if (url.getPort() >= 0) {
      sb.append(':').append(url.getPort());
    }
    String path = url.getRawPath();
    sb.append(path == null || path.isEmpty() ? "/" : path);
    if (url.getRawQuery() != null) {
      sb.append("?\u2026");
    }
    return sb.toString();
  }
}
