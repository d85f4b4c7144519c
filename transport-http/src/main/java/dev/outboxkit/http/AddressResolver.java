package dev.outboxkit.http;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Resolves an endpoint's host name to the addresses checked before any request is made (the guard
 * against requests to loopback, private and metadata addresses). Replaceable so that tests, and
 * applications with their own DNS policy, control resolution.
 *
 * <p><i>DNS rebinding:</i> the HTTP client resolves the host again when it connects. With the
 * default resolver both lookups normally hit the JVM's address cache (30 s positive TTL by
 * default), which keeps them consistent, but a hostile DNS server with a zero TTL can still answer
 * differently the second time. Where tenants control endpoint URLs, also enforce egress rules in
 * the network (firewall or egress proxy).
 */
@FunctionalInterface
public interface AddressResolver {

  /**
   * Resolves a host.
   *
   * @param host a host name or an IP literal (IPv6 without brackets)
   * @return every address the host may be reached at; empty counts as unknown
   * @throws UnknownHostException if it cannot be resolved
   */
  List<InetAddress> resolve(String host) throws UnknownHostException;

  /**
   * The JVM's resolver, {@link InetAddress#getAllByName}. Its positive cache ({@code
   * networkaddress.cache.ttl}, 30 s by default) is shared with the HTTP client's own lookup, which
   * is what normally keeps the checked and the connected address the same.
   *
   * @return the system resolver
   */
  static AddressResolver system() {
    return host -> List.of(InetAddress.getAllByName(host));
  }
}
