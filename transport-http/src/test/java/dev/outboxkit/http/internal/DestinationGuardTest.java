package dev.outboxkit.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.http.AddressResolver;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Scheme and address checks, with injected resolvers: no lookup, no packet leaves. */
class DestinationGuardTest {
  private static final URI HTTPS = URI.create("https://hooks.example.com/in");

  private static AddressResolver resolvesTo(String... literals) {
    return host -> {
      InetAddress[] all = new InetAddress[literals.length];
      for (int i = 0; i < literals.length; i++) {
        all[i] = InetAddress.getByName(literals[i]); // IP literals: no lookup
      }
      return List.of(all);
    };
  }

  @Test
  void allows_https_to_public_addresses() {
    DestinationGuard.Verdict v =
        new DestinationGuard(resolvesTo("93.184.216.34"), false, false).check(HTTPS, "x");

    assertThat(v.refusal).isNull();
    assertThat(v.resolveFailure).isNull();
  }

  @Test
  void refuses_plain_http_unless_allowed() {
    URI http = URI.create("http://hooks.example.com/in");
    AddressResolver r = resolvesTo("93.184.216.34");

    assertThat(new DestinationGuard(r, false, false).check(http, "http://x").refusal)
        .isEqualTo(
            "plain http is not allowed for http://x: use https, or allowHttp() on the webhook transport");
    assertThat(new DestinationGuard(r, true, false).check(http, "http://x").refusal).isNull();
  }

  @Test
  void the_scheme_rule_allows_https_always_and_http_only_when_allowed() {
    URI http = URI.create("http://hooks.example.com/in");

    assertThat(DestinationGuard.schemeAllowed(HTTPS, false)).isTrue();
    assertThat(DestinationGuard.schemeAllowed(URI.create("HTTPS://hooks.example.com/"), false))
        .isTrue();
    assertThat(DestinationGuard.schemeAllowed(http, false)).isFalse();
    assertThat(DestinationGuard.schemeAllowed(http, true)).isTrue();
    assertThat(DestinationGuard.schemeAllowed(URI.create("ftp://hooks.example.com/"), true))
        .isFalse();
  }

  @Test
  void refuses_a_host_with_any_private_address_unless_allowed() {
    AddressResolver r = resolvesTo("93.184.216.34", "10.1.2.3");

    DestinationGuard.Verdict v = new DestinationGuard(r, false, false).check(HTTPS, "x");
    assertThat(v.addressRefusal)
        .startsWith("x resolves to private (site-local) address 10.1.2.3, refused");
    assertThat(v.refusal).as("the endpoint's outage, not a rejection of its events").isNull();
    assertThat(new DestinationGuard(r, false, true).check(HTTPS, "x").allowed()).isTrue();
  }

  @Test
  void refuses_cloud_metadata_addresses_always() {
    AddressResolver r = resolvesTo("169.254.169.254");

    DestinationGuard.Verdict v = new DestinationGuard(r, true, true).check(HTTPS, "x");
    assertThat(v.addressRefusal)
        .contains("cloud metadata address 169.254.169.254, which is always refused");
    assertThat(v.refusal).isNull();
  }

  @Test
  void knows_at_build_only_ip_literals_and_localhost() {
    assertThat(DestinationGuard.refusalKnownAtBuild(URI.create("https://10.9.8.7/in"), false))
        .startsWith("webhook endpoint https://10.9.8.7/in is on private (site-local) address");
    assertThat(DestinationGuard.refusalKnownAtBuild(URI.create("https://[fe80::1]/in"), false))
        .contains("link-local address fe80:0:0:0:0:0:0:1");
    assertThat(DestinationGuard.refusalKnownAtBuild(URI.create("https://localhost./in"), false))
        .contains("loopback (localhost)");
    assertThat(DestinationGuard.refusalKnownAtBuild(URI.create("https://10.9.8.7/in"), true))
        .isNull();
    assertThat(DestinationGuard.refusalKnownAtBuild(URI.create("https://93.184.216.34/"), false))
        .isNull();
    assertThat(DestinationGuard.refusalKnownAtBuild(HTTPS, false)).as("a name").isNull();
    // Legacy and out-of-range forms are not parsed here (no lookup either): send time judges them.
    for (String host :
        new String[] {"127.1", "0x7f.0.0.1", "010.0.0.1", "256.0.0.1", "1.2.3.4.5", "1..2.3"}) {
      assertThat(DestinationGuard.ipLiteral(host)).as(host).isNull();
    }
    assertThat(DestinationGuard.ipLiteral("10.0.0.1").getHostAddress()).isEqualTo("10.0.0.1");
  }

  @Test
  void an_unresolvable_host_is_the_endpoints_outage_not_a_refusal() {
    AddressResolver unknown =
        host -> {
          throw new UnknownHostException(host);
        };
    AddressResolver failing =
        host -> {
          throw new IllegalStateException("resolver broken");
        };
    AddressResolver empty = host -> List.of();

    DestinationGuard.Verdict v = new DestinationGuard(unknown, false, false).check(HTTPS, "x");
    assertThat(v.refusal).isNull();
    assertThat(v.resolveFailure).isEqualTo("cannot resolve the host of x");
    assertThat(new DestinationGuard(empty, false, false).check(HTTPS, "x").resolveFailure)
        .isEqualTo("cannot resolve the host of x");
    assertThat(new DestinationGuard(failing, false, false).check(HTTPS, "x").resolveFailure)
        .startsWith("resolving the host of x failed: ")
        .contains("resolver broken");
  }

  @Test
  void strips_the_brackets_of_an_ipv6_literal_before_resolving() {
    String[] asked = new String[1];
    AddressResolver r =
        host -> {
          asked[0] = host;
          return List.of(InetAddress.getByName(host));
        };

    new DestinationGuard(r, false, true).check(URI.create("https://[::1]:8443/in"), "x");

    assertThat(asked[0]).isEqualTo("::1");
  }
}
