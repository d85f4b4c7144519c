package dev.outboxkit.http.internal;

import dev.outboxkit.Failures;
import dev.outboxkit.http.AddressResolver;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;

/**
 * Decides, before any connection, whether an endpoint may be sent to: its scheme ({@code https}, or
 * {@code http} when allowed) and the addresses its host resolves to (no cloud metadata address
 * ever; no loopback, private, link-local or other non-public address unless allowed), against
 * server-side request forgery.
 *
 * <p>A refused address is a configuration mistake or a DNS answer that may yet change, not a fault
 * of any event: where the address is known when the transport is built (an IP literal, {@code
 * localhost}) the build fails ({@link #refusalKnownAtBuild}); at send time it is the endpoint's
 * outage, so its events wait, uncharged, instead of going DEAD.
 */
public final class DestinationGuard {
  /** What the guard says of one endpoint. */
  public static final class Verdict {
    /** Why the endpoint is refused (a permanent refusal: its events are rejected), or null. */
    public final String refusal;

    /** Why its host could not be resolved now (an outage of the endpoint), or null. */
    public final String resolveFailure;

    /**
     * Why an address of its host is refused (the endpoint's outage: its events are held until the
     * host resolves to allowed addresses, or the transport allows them), or null.
     */
    public final String addressRefusal;

    private Verdict(String refusal, String resolveFailure, String addressRefusal) {
      this.refusal = refusal;
      this.resolveFailure = resolveFailure;
      this.addressRefusal = addressRefusal;
    }

    /** {@return true when the endpoint may be sent to} */
    public boolean allowed() {
      return refusal == null && resolveFailure == null && addressRefusal == null;
    }
  }

  private static final Verdict ALLOWED = new Verdict(null, null, null);

  private final AddressResolver resolver;
  private final boolean allowHttp;
  private final boolean allowPrivateAddresses;

  /**
   * @param resolver resolves hosts for the address check
   * @param allowHttp plain {@code http} is allowed
   * @param allowPrivateAddresses non-public addresses are allowed (metadata addresses never are)
   */
  public DestinationGuard(
      AddressResolver resolver, boolean allowHttp, boolean allowPrivateAddresses) {
    this.resolver = resolver;
    this.allowHttp = allowHttp;
    this.allowPrivateAddresses = allowPrivateAddresses;
  }

  /**
   * The scheme rule, which the builder also applies to a single endpoint so that it fails fast.
   *
   * @param url an endpoint
   * @param allowHttp plain {@code http} is allowed
   * @return true for {@code https}, and for {@code http} when allowed
   */
  public static boolean schemeAllowed(URI url, boolean allowHttp) {
    String scheme = url.getScheme().toLowerCase(Locale.ROOT);
    return scheme.equals("https") || (scheme.equals("http") && allowHttp);
  }

  /**
   * Checks the scheme, then resolves the host and checks every address. Waits for DNS, which an
   * interrupt does not cut short.
   *
   * @param url the endpoint
   * @param display the endpoint as logs show it (no query string)
   */
  public Verdict check(URI url, String display) {
    if (!schemeAllowed(url, allowHttp)) {
      return new Verdict(
          "plain http is not allowed for "
              + display
              + ": use https, or allowHttp() on the webhook transport",
          null,
          null);
    }
    String host = url.getHost();
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    List<InetAddress> addresses;
    try {
      addresses = resolver.resolve(host);
    } catch (UnknownHostException e) {
      addresses = null;
    } catch (RuntimeException e) {
      return new Verdict(
          null, "resolving the host of " + display + " failed: " + Failures.describe(e), null);
    }
    if (addresses == null || addresses.isEmpty()) {
      return new Verdict(null, "cannot resolve the host of " + display, null);
    }
    for (InetAddress a : addresses) {
      if (AddressGuard.isMetadata(a)) {
        return new Verdict(
            null,
            null,
            display
                + " resolves to cloud metadata address "
                + a.getHostAddress()
                + ", which is always refused (server-side request forgery guard)");
      }
      String kind = allowPrivateAddresses ? null : AddressGuard.nonPublicKind(a);
      if (kind != null) {
        return new Verdict(
            null,
            null,
            display
                + " resolves to "
                + kind
                + " address "
                + a.getHostAddress()
                + ", refused to prevent server-side request forgery;"
                + " allowPrivateAddresses() on the webhook transport permits it");
      }
    }
    return ALLOWED;
  }

  /**
   * The refusal of an endpoint whose address is known without a lookup — its host is an IP literal
   * or {@code localhost} — for the transport's builder, so that such a mistake fails at start-up
   * rather than holding every event. Other host names are judged at send time.
   *
   * @param url an endpoint configured on the transport
   * @param allowPrivateAddresses non-public addresses are allowed (metadata addresses never are)
   * @return why the transport cannot be built, naming the endpoint and what to do; or null
   */
  public static String refusalKnownAtBuild(URI url, boolean allowPrivateAddresses) {
    String display = Urls.display(url);
    String host = url.getHost();
    String lower = host.toLowerCase(Locale.ROOT);
    if (lower.equals("localhost")
        || lower.equals("localhost.")
        || lower.endsWith(".localhost")
        || lower.endsWith(".localhost.")) {
      // RFC 6761: localhost names are loopback, whatever a resolver says.
      return allowPrivateAddresses
          ? null
          : "webhook endpoint "
              + display
              + " is on loopback (localhost), which the webhook transport refuses against"
              + " server-side request forgery: call allowPrivateAddresses() on the transport's"
              + " builder to send to it (tests, receivers in your own network)";
    }
    InetAddress literal = ipLiteral(host);
    if (literal == null) {
      return null;
    }
    if (AddressGuard.isMetadata(literal)) {
      return "webhook endpoint "
          + display
          + " is the cloud metadata address "
          + literal.getHostAddress()
          + ", which is always refused (server-side request forgery guard); no option permits"
          + " it: configure the receiver's own address";
    }
    String kind = allowPrivateAddresses ? null : AddressGuard.nonPublicKind(literal);
    return kind == null
        ? null
        : "webhook endpoint "
            + display
            + " is on "
            + kind
            + " address "
            + literal.getHostAddress()
            + ", which the webhook transport refuses against server-side request forgery:"
            + " call allowPrivateAddresses() on the transport's builder to send to it (tests,"
            + " receivers in your own network)";
  }

  /**
   * The address an IP-literal host stands for, without any lookup: a dotted quad, or an IPv6
   * literal in brackets; null for anything else (a host name, or a legacy or ambiguous form such as
   * {@code 127.1} or {@code 010.0.0.1}, left to the send-time check).
   */
  static InetAddress ipLiteral(String host) {
    try {
      if (host.startsWith("[") && host.endsWith("]")) {
        String v6 = host.substring(1, host.length() - 1);
        // A string with ':' is parsed as an IPv6 literal, never looked up; a zone id may name an
        // interface, which is left to the send-time check.
        return v6.indexOf(':') >= 0 && v6.indexOf('%') < 0 ? InetAddress.getByName(v6) : null;
      }
      String[] parts = host.split("\\.", -1);
      if (parts.length != 4) {
        return null;
      }
      byte[] b = new byte[4];
      for (int i = 0; i < 4; i++) {
        String p = parts[i];
        // A leading zero reads as octal to some parsers (010 = 8): ambiguous, so not judged here.
        if (p.isEmpty()
            || p.length() > 3
            || (p.length() > 1 && p.charAt(0) == '0')
            || !p.chars().allMatch(c -> c >= '0' && c <= '9')) {
          return null;
        }
        int v = Integer.parseInt(p);
        if (v > 255) {
          return null;
        }
        b[i] = (byte) v;
      }
      return InetAddress.getByAddress(b); // raw bytes: no lookup
    } catch (UnknownHostException e) {
      return null;
    }
  }
}
