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
 */
public final class DestinationGuard {
  /** What the guard says of one endpoint. */
  public static final class Verdict {
    /** Why the endpoint is refused (a permanent refusal: its events are rejected), or null. */
    public final String refusal;

    /** Why its host could not be resolved now (an outage of the endpoint), or null. */
    public final String resolveFailure;

    private Verdict(String refusal, String resolveFailure) {
      this.refusal = refusal;
      this.resolveFailure = resolveFailure;
    }
  }

  private static final Verdict ALLOWED = new Verdict(null, null);

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
          null, "resolving the host of " + display + " failed: " + Failures.describe(e));
    }
    if (addresses == null || addresses.isEmpty()) {
      return new Verdict(null, "cannot resolve the host of " + display);
    }
    for (InetAddress a : addresses) {
      if (AddressGuard.isMetadata(a)) {
        return new Verdict(
            display
                + " resolves to cloud metadata address "
                + a.getHostAddress()
                + ", which is always refused (server-side request forgery guard)",
            null);
      }
      String kind = allowPrivateAddresses ? null : AddressGuard.nonPublicKind(a);
      if (kind != null) {
        return new Verdict(
            display
                + " resolves to "
                + kind
                + " address "
                + a.getHostAddress()
                + ", refused to prevent server-side request forgery;"
                + " allowPrivateAddresses() on the webhook transport permits it",
            null);
      }
    }
    return ALLOWED;
  }
}
