package dev.outboxkit.http;

import static dev.outboxkit.http.Events.SECRET;
import static dev.outboxkit.http.Events.event;
import static dev.outboxkit.http.Events.first;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.SendResult;
import dev.outboxkit.SendResult.Status;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The guard against requests to internal addresses. No test here may let a packet leave the JVM,
 * even if the guard were broken: host names are resolved from a map (no DNS), and the HTTP client
 * is a {@link RecordingHttpClient} that records every attempt and never opens a socket.
 */
class WebhookTransportAddressGuardTest {
  final RecordingHttpClient client = new RecordingHttpClient();
  final List<String> lookups = new CopyOnWriteArrayList<>();
  final Map<String, byte[][]> dns =
      Map.of(
          "receiver.test", new byte[][] {{127, 0, 0, 1}},
          "mixed.test", new byte[][] {{93, (byte) 184, (byte) 216, 34}, {10, 1, 2, 3}},
          "public.test", new byte[][] {{93, (byte) 184, (byte) 216, 34}},
          "169.254.169.254", new byte[][] {{(byte) 169, (byte) 254, (byte) 169, (byte) 254}},
          "10.0.0.1", new byte[][] {{10, 0, 0, 1}});
  final AddressResolver resolver =
      host -> {
        lookups.add(host);
        byte[][] found = dns.get(host);
        if (found == null) {
          throw new UnknownHostException(host);
        }
        InetAddress[] addresses = new InetAddress[found.length];
        for (int i = 0; i < found.length; i++) {
          addresses[i] = InetAddress.getByAddress(host, found[i]); // no lookup
        }
        return List.of(addresses);
      };
  WebhookTransport transport;

  @AfterEach
  void stop() {
    if (transport != null) {
      transport.close();
    }
  }

  SendResult sendTo(String url, UnaryOperator<WebhookTransport.Builder> options) {
    transport =
        options
            .apply(
                WebhookTransport.builder(ev -> WebhookEndpoint.of(URI.create(url), SECRET))
                    .httpClient(client)
                    .resolver(resolver))
            .build();
    return transport.send(first(event("o-1", "{}")));
  }

  @Test
  void refuses_the_metadata_address_even_when_private_addresses_are_allowed() {
    SendResult r =
        sendTo(
            "http://169.254.169.254/latest/meta-data/", b -> b.allowHttp().allowPrivateAddresses());

    assertThat(r.status()).isEqualTo(Status.REJECT);
    assertThat(r.reason().orElseThrow())
        .isEqualTo(
            "http://169.254.169.254/latest/meta-data/ resolves to cloud metadata address"
                + " 169.254.169.254, which is always refused (server-side request forgery guard)");
    assertThat(client.attempts()).isEmpty();
  }

  @Test
  void refuses_a_private_address() {
    SendResult r = sendTo("http://10.0.0.1/", WebhookTransport.Builder::allowHttp);

    assertThat(r.status()).isEqualTo(Status.REJECT);
    assertThat(r.reason().orElseThrow())
        .contains("private (site-local) address 10.0.0.1")
        .contains("allowPrivateAddresses()");
    assertThat(client.attempts()).isEmpty();
  }

  @Test
  void refuses_a_host_name_resolving_to_loopback_without_the_allowance() {
    SendResult r = sendTo("https://receiver.test:8443/hooks", b -> b);

    assertThat(r.status()).isEqualTo(Status.REJECT);
    assertThat(r.reason().orElseThrow()).contains("loopback address 127.0.0.1");
    assertThat(lookups).containsExactly("receiver.test");
    assertThat(client.attempts()).isEmpty();
  }

  @Test
  void refuses_a_host_when_any_of_its_addresses_is_private() {
    SendResult r = sendTo("https://mixed.test/", b -> b);

    assertThat(r.status()).isEqualTo(Status.REJECT);
    assertThat(r.reason().orElseThrow()).contains("10.1.2.3");
    assertThat(client.attempts()).isEmpty();
  }

  @Test
  void refuses_plain_http_before_resolving() {
    SendResult r = sendTo("http://public.test/", b -> b.allowPrivateAddresses());

    assertThat(r.status()).isEqualTo(Status.REJECT);
    assertThat(r.reason().orElseThrow()).contains("plain http is not allowed");
    assertThat(lookups).isEmpty();
    assertThat(client.attempts()).isEmpty();
  }

  @Test
  void answers_unavailable_for_a_host_that_does_not_resolve() {
    SendResult r = sendTo("https://nowhere.test/", b -> b);

    assertThat(r.status()).isEqualTo(Status.UNAVAILABLE);
    assertThat(r.reason().orElseThrow())
        .contains("cannot resolve the host of https://nowhere.test/");
    assertThat(client.attempts()).isEmpty();
  }

  @Test
  void hands_a_loopback_host_to_the_client_only_when_allowed() {
    SendResult r = sendTo("https://receiver.test:8443/hooks", b -> b.allowPrivateAddresses());

    // The hook refused the connection, so the one-request batch counts as an outage.
    assertThat(r.status()).isEqualTo(Status.UNAVAILABLE);
    assertThat(client.attempts()).containsExactly(URI.create("https://receiver.test:8443/hooks"));
  }

  @Test
  void hands_a_public_host_to_the_client() {
    sendTo("https://public.test/hooks", b -> b);

    assertThat(client.attempts()).containsExactly(URI.create("https://public.test/hooks"));
  }

  @Test
  void checks_again_for_every_batch_and_warns_once() {
    sendTo("https://receiver.test/", b -> b);
    transport.send(first(event("o-2", "{}")));

    assertThat(lookups).hasSize(2);
    assertThat(client.attempts()).isEmpty();
  }
}
