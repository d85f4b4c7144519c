package dev.outboxkit.http.internal;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Decides whether an address is a public unicast destination. Used before any connection is made,
 * so a webhook URL cannot be pointed at the relay host itself, the internal network or a cloud
 * metadata service (server-side request forgery).
 */
final class AddressGuard {

  private AddressGuard() {}

  /**
   * True for the cloud instance-metadata addresses (AWS/GCP/Azure/OpenStack 169.254.169.254, AWS
   * ECS 169.254.170.2, Alibaba 100.100.100.200, AWS IPv6 fd00:ec2::254). These are refused even
   * when private addresses are allowed: no webhook legitimately lives there, and they hand out
   * credentials.
   *
   * @param address a resolved address
   * @return whether it is a metadata endpoint
   */
  public static boolean isMetadata(InetAddress address) {
    byte[] b = address.getAddress();
    if (b.length == 4) {
      int v = ipv4(b, 0);
      return v == ipv4(169, 254, 169, 254)
          || v == ipv4(169, 254, 170, 2)
          || v == ipv4(100, 100, 100, 200);
    }
    byte[] v4 = embeddedIpv4(b);
    if (v4 != null) {
      return isMetadata(toInet(v4));
    }
    // fd00:ec2::254
    return (b[0] & 0xff) == 0xfd
        && b[1] == 0
        && (b[2] & 0xff) == 0x0e
        && (b[3] & 0xff) == 0xc2
        && allZero(b, 4, 14)
        && (b[14] & 0xff) == 0x02
        && (b[15] & 0xff) == 0x54;
  }

  /**
   * Says why an address is not a public unicast destination.
   *
   * @param address a resolved address
   * @return a short description such as {@code "loopback"}, or null when the address is public
   */
  public static String nonPublicKind(InetAddress address) {
    if (isMetadata(address)) {
      return "cloud metadata";
    }
    if (address.isAnyLocalAddress()) {
      return "unspecified (any-local)";
    }
    if (address.isLoopbackAddress()) {
      return "loopback";
    }
    if (address.isLinkLocalAddress()) {
      return "link-local";
    }
    if (address.isSiteLocalAddress()) {
      return "private (site-local)";
    }
    if (address.isMulticastAddress()) {
      return "multicast";
    }
    byte[] b = address.getAddress();
    if (address instanceof Inet4Address) {
      return ipv4Kind(b);
    }
    if (address instanceof Inet6Address) {
      if ((b[0] & 0xfe) == 0xfc) {
        return "unique-local (fc00::/7)";
      }
      byte[] v4 = embeddedIpv4(b);
      if (v4 != null) {
        // ::a.b.c.d, ::ffff:a.b.c.d, 64:ff9b::a.b.c.d (NAT64) and 2002:ab:cd:: (6to4) all lead to
        // an IPv4 host; judge that host.
        String kind = nonPublicKind(toInet(v4));
        return kind == null ? null : kind + " (embedded in IPv6)";
      }
    }
    return null;
  }

  private static String ipv4Kind(byte[] b) {
    int first = b[0] & 0xff;
    int second = b[1] & 0xff;
    if (first == 0) {
      return "reserved (0.0.0.0/8)";
    }
    if (first == 100 && (second & 0xc0) == 64) {
      return "shared address space (100.64.0.0/10)";
    }
    if (first == 198 && (second == 18 || second == 19)) {
      return "benchmarking (198.18.0.0/15)";
    }
    if (first >= 240) {
      return "reserved (240.0.0.0/4)";
    }
    return null;
  }

  /** The IPv4 address an IPv6 address stands for, or null. */
  private static byte[] embeddedIpv4(byte[] b) {
    if (b.length != 16) {
      return null;
    }
    boolean compatible = allZero(b, 0, 12) && !allZero(b, 12, 16);
    boolean mapped = allZero(b, 0, 10) && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
    boolean nat64 =
        b[0] == 0
            && (b[1] & 0xff) == 0x64
            && (b[2] & 0xff) == 0xff
            && (b[3] & 0xff) == 0x9b
            && allZero(b, 4, 12);
    if (compatible || mapped || nat64) {
      return new byte[] {b[12], b[13], b[14], b[15]};
    }
    if ((b[0] & 0xff) == 0x20 && (b[1] & 0xff) == 0x02) {
      return new byte[] {b[2], b[3], b[4], b[5]};
    }
    return null;
  }

  private static boolean allZero(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return true;
  }

  private static int ipv4(byte[] b, int off) {
    return ((b[off] & 0xff) << 24)
        | ((b[off + 1] & 0xff) << 16)
        | ((b[off + 2] & 0xff) << 8)
        | (b[off + 3] & 0xff);
  }

  private static int ipv4(int a, int b, int c, int d) {
    return (a << 24) | (b << 16) | (c << 8) | d;
  }

  private static InetAddress toInet(byte[] v4) {
    try {
      return InetAddress.getByAddress(v4); // no lookup: raw bytes
    } catch (UnknownHostException e) {
      throw new IllegalStateException("4 bytes are always a valid IPv4 address", e);
    }
  }
}
