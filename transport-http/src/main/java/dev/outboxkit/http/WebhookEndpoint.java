package dev.outboxkit.http;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.http.internal.HeaderValues;
import dev.outboxkit.http.internal.Urls;
import dev.outboxkit.internal.EventValidation;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Where and how to deliver a webhook: the URL, the signing secret(s) and extra headers (e.g. an
 * {@code Authorization} header the receiver's gateway wants). Immutable; everything is validated
 * when it is built, so a bad secret or URL fails at start-up, not at 3 a.m.
 *
 * <pre>{@code
 * WebhookEndpoint ep = WebhookEndpoint.builder(URI.create("https://example.com/hooks"))
 *     .secret("whsec_...")          // the new secret
 *     .secret("whsec_...")          // the old one, during rotation
 *     .header("Authorization", "Bearer ...")
 *     .build();
 * }</pre>
 *
 * <p>The URL may not carry user info (put credentials in a header instead): URLs appear in logs and
 * failure reasons, shown without their query string, so keep tokens out of paths as well. Whether
 * plain {@code http} and private addresses are acceptable is decided by the {@link
 * WebhookTransport}: when it is built for an endpoint it knows then (its scheme, and a host that is
 * an IP literal or {@code localhost}), otherwise before each batch.
 */
public final class WebhookEndpoint {
  private final URI url;
  private final List<String> secrets;
  private final WebhookSigner signer;
  private final Map<String, String> headers;
  private final Set<String> lowerCaseHeaderNames;

  private WebhookEndpoint(Builder b) {
    this.url = b.url;
    this.secrets = List.copyOf(b.secrets);
    this.signer = WebhookSigner.of(secrets);
    this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(b.headers));
    this.lowerCaseHeaderNames =
        headers.keySet().stream()
            .map(n -> n.toLowerCase(Locale.ROOT))
            .collect(Collectors.toUnmodifiableSet());
  }

  /**
   * An endpoint with one secret and no extra headers.
   *
   * @param url {@code https://…} (or {@code http://…} if the transport allows it)
   * @param secret {@code whsec_<base64 key>}
   * @return the endpoint
   * @throws OutboxConfigurationException if the URL or secret is malformed, or the secret's key is
   *     shorter than {@link WebhookSigner#MIN_SECRET_BYTES} bytes
   */
  public static WebhookEndpoint of(URI url, String secret) {
    return builder(url).secret(secret).build();
  }

  /**
   * Starts an endpoint; add at least one secret.
   *
   * @param url {@code https://…} (or {@code http://…} if the transport allows it)
   * @return a builder
   * @throws OutboxConfigurationException if the URL is malformed
   */
  public static Builder builder(URI url) {
    return new Builder(url);
  }

  /** {@return the URL requests are POSTed to} */
  public URI url() {
    return url;
  }

  /** {@return how many secrets sign each request (one signature each)} */
  public int secretCount() {
    return secrets.size();
  }

  /** {@return the extra headers sent with every request, in insertion order; unmodifiable} */
  public Map<String, String> headers() {
    return headers;
  }

  /**
   * The signer made from this endpoint's secrets: what the transport signs each request with, and
   * what a test of a receiver can sign its own requests with.
   *
   * @return the signer; it never reveals the secrets
   */
  public WebhookSigner signer() {
    return signer;
  }

  /**
   * Whether an extra header of this name is configured, in any case.
   *
   * @param name a header name
   * @return true if {@link #headers()} holds it, compared without case
   */
  public boolean hasHeader(String name) {
    return !lowerCaseHeaderNames.isEmpty()
        && lowerCaseHeaderNames.contains(name.toLowerCase(Locale.ROOT));
  }

  /** Equal when URL, secrets and headers are equal. */
  @Override
  public boolean equals(Object o) {
    if (!(o instanceof WebhookEndpoint)) {
      return false;
    }
    WebhookEndpoint e = (WebhookEndpoint) o;
    return url.equals(e.url) && secrets.equals(e.secrets) && headers.equals(e.headers);
  }

  @Override
  public int hashCode() {
    return url.hashCode();
  }

  /** Shows the URL (without query), the number of secrets and the header names; no values. */
  @Override
  public String toString() {
    return "WebhookEndpoint["
        + Urls.display(url)
        + ", secrets="
        + secrets.size()
        + (headers.isEmpty() ? "" : ", headers=" + headers.keySet())
        + "]";
  }

  /** Configures a {@link WebhookEndpoint}; each option is validated where it is set. */
  public static final class Builder {
    private final URI url;
    private final List<String> secrets = new ArrayList<>();
    private final Map<String, String> headers = new LinkedHashMap<>();

    private Builder(URI url) {
      this.url = validUrl(url);
    }

    /**
     * Signs with this secret; call again for each further active secret during rotation.
     *
     * @param secret {@code whsec_<base64 key>}
     * @return this builder
     * @throws OutboxConfigurationException if malformed or its key is shorter than {@link
     *     WebhookSigner#MIN_SECRET_BYTES} bytes (the message never repeats it)
     */
    public Builder secret(String secret) {
      WebhookSigner.of(secret); // validates
      secrets.add(secret);
      return this;
    }

    /**
     * Sends this header with every request to the endpoint. It wins over an event header of the
     * same name. Names the transport sets itself ({@code content-type}, {@code webhook-*}, {@code
     * outbox-*}, {@code svix-*}, connection-level headers) are refused.
     *
     * @param name an HTTP token
     * @param value printable ASCII
     * @return this builder
     * @throws OutboxConfigurationException if the name is reserved or not a token, or the value is
     *     not printable ASCII (the value is never repeated: it may be a credential)
     */
    public Builder header(String name, String value) {
      if (!EventValidation.isToken(name)) {
        throw new OutboxConfigurationException(
            "endpoint header name '"
                + name
                + "' is not an HTTP token: use letters, digits and !#$%&'*+-.^_`|~ only");
      }
      if (HeaderValues.isReserved(name)) {
        throw new OutboxConfigurationException(
            "endpoint header '"
                + name
                + "' is set by the webhook transport itself and cannot be configured");
      }
      if (value == null || !HeaderValues.isPlain(value)) {
        throw new OutboxConfigurationException(
            "endpoint header '"
                + name
                + "' needs a value of printable ASCII characters (the value is not shown)");
      }
      for (String existing : headers.keySet()) {
        if (existing.equalsIgnoreCase(name)) {
          throw new OutboxConfigurationException(
              "endpoint header '" + name + "' is set twice; set it once");
        }
      }
      headers.put(name, value);
      return this;
    }

    /**
     * Builds the endpoint.
     *
     * @return the endpoint
     * @throws OutboxConfigurationException if no secret was given
     */
    public WebhookEndpoint build() {
      if (secrets.isEmpty()) {
        throw new OutboxConfigurationException(
            "webhook endpoint "
                + Urls.display(url)
                + " needs at least one secret: call secret(\"whsec_...\")");
      }
      return new WebhookEndpoint(this);
    }

    private static URI validUrl(URI url) {
      if (url == null) {
        throw new OutboxConfigurationException("webhook endpoint URL must not be null");
      }
      String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
      if (!url.isAbsolute() || !(scheme.equals("https") || scheme.equals("http"))) {
        throw new OutboxConfigurationException(
            "webhook endpoint URL must be absolute https:// (or http:// where allowed), was scheme '"
                + scheme
                + "'");
      }
      if (url.getRawUserInfo() != null) {
        throw new OutboxConfigurationException(
            "webhook endpoint URL must not contain user info (user:password@): put credentials in"
                + " an endpoint header instead");
      }
      if (url.getHost() == null || url.getHost().isEmpty()) {
        throw new OutboxConfigurationException(
            "webhook endpoint URL has no valid host name (underscores are not allowed in host"
                + " names)");
      }
      if (url.getRawFragment() != null) {
        throw new OutboxConfigurationException(
            "webhook endpoint URL must not have a #fragment: it is never sent; remove it");
      }
      return url;
    }
  }
}
