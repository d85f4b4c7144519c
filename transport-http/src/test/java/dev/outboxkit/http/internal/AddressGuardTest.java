package dev.outboxkit.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;

class AddressGuardTest {

  /** IP literals only: {@link InetAddress#getByName} does no lookup for them. */
  static InetAddress ip(String literal) throws UnknownHostException {
    return InetAddress.getByName(literal);
  }

  @Test
  void names_every_kind_of_non_public_address() throws Exception {
    assertThat(AddressGuard.nonPublicKind(ip("127.0.0.1"))).isEqualTo("loopback");
    assertThat(AddressGuard.nonPublicKind(ip("127.8.9.10"))).isEqualTo("loopback");
    assertThat(AddressGuard.nonPublicKind(ip("::1"))).isEqualTo("loopback");
    assertThat(AddressGuard.nonPublicKind(ip("10.0.0.1"))).isEqualTo("private (site-local)");
    assertThat(AddressGuard.nonPublicKind(ip("172.16.5.4"))).isEqualTo("private (site-local)");
    assertThat(AddressGuard.nonPublicKind(ip("192.168.1.1"))).isEqualTo("private (site-local)");
    assertThat(AddressGuard.nonPublicKind(ip("169.254.1.1"))).isEqualTo("link-local");
    assertThat(AddressGuard.nonPublicKind(ip("fe80::1"))).isEqualTo("link-local");
    assertThat(AddressGuard.nonPublicKind(ip("fc00::1"))).isEqualTo("unique-local (fc00::/7)");
    assertThat(AddressGuard.nonPublicKind(ip("fd12:3456::1"))).isEqualTo("unique-local (fc00::/7)");
    assertThat(AddressGuard.nonPublicKind(ip("0.0.0.0"))).isEqualTo("unspecified (any-local)");
    assertThat(AddressGuard.nonPublicKind(ip("::"))).isEqualTo("unspecified (any-local)");
    assertThat(AddressGuard.nonPublicKind(ip("0.1.2.3"))).isEqualTo("reserved (0.0.0.0/8)");
    assertThat(AddressGuard.nonPublicKind(ip("224.0.0.1"))).isEqualTo("multicast");
    assertThat(AddressGuard.nonPublicKind(ip("ff02::1"))).isEqualTo("multicast");
    assertThat(AddressGuard.nonPublicKind(ip("100.64.0.1")))
        .isEqualTo("shared address space (100.64.0.0/10)");
    assertThat(AddressGuard.nonPublicKind(ip("255.255.255.255")))
        .isEqualTo("reserved (240.0.0.0/4)");
  }

  @Test
  void recognises_cloud_metadata_addresses() throws Exception {
    assertThat(AddressGuard.isMetadata(ip("169.254.169.254"))).isTrue();
    assertThat(AddressGuard.isMetadata(ip("fd00:ec2::254"))).isTrue();
    assertThat(AddressGuard.isMetadata(ip("100.100.100.200"))).isTrue();
    assertThat(AddressGuard.isMetadata(ip("::ffff:169.254.169.254"))).isTrue();
    assertThat(AddressGuard.nonPublicKind(ip("169.254.169.254"))).isEqualTo("cloud metadata");
    assertThat(AddressGuard.isMetadata(ip("169.254.169.253"))).isFalse();
  }

  @Test
  void judges_ipv4_hidden_in_ipv6_by_the_ipv4_host() throws Exception {
    // ::ffff:10.0.0.1 is turned into an Inet4Address by the JDK itself.
    assertThat(AddressGuard.nonPublicKind(ip("::ffff:10.0.0.1"))).isEqualTo("private (site-local)");
    assertThat(AddressGuard.nonPublicKind(ip("::10.0.0.1")))
        .isEqualTo("private (site-local) (embedded in IPv6)");
    assertThat(AddressGuard.nonPublicKind(ip("64:ff9b::7f00:1")))
        .isEqualTo("loopback (embedded in IPv6)");
    assertThat(AddressGuard.nonPublicKind(ip("2002:c0a8:0101::1")))
        .isEqualTo("private (site-local) (embedded in IPv6)");
    assertThat(AddressGuard.nonPublicKind(ip("64:ff9b::808:808"))).isNull();
  }

  @Test
  void lets_public_addresses_through() throws Exception {
    assertThat(AddressGuard.nonPublicKind(ip("93.184.216.34"))).isNull();
    assertThat(AddressGuard.nonPublicKind(ip("8.8.8.8"))).isNull();
    assertThat(AddressGuard.nonPublicKind(ip("172.32.0.1"))).isNull();
    assertThat(AddressGuard.nonPublicKind(ip("2606:4700:4700::1111"))).isNull();
  }
}
