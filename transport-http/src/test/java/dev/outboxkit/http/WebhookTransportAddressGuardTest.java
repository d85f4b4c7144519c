package dev.outboxkit.http;

import static dev.outboxkit.http.Events.SECRET;
import static dev.outboxkit.http.Events.event;
import static dev.outboxkit.http.Events.first;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.SendResult;
import dev.outboxkit.SendResult.Status;
import dev.outboxkit.testkit.MutableClock;
import dev.outboxkit.testkit.logging.LogCapture;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
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

    // A routed endpoint: refused at send time, as that endpoint's outage (held, never DEAD).
    assertThat(r.status()).isEqualTo(Status.UNAVAILABLE);
    assertThat(r.scope()).contains("webhook endpoint http://169.254.169.254/latest/meta-data/");
    assertThat(r.reason().orElseThrow())
        .isEqualTo(
            "http://169.254.169.254/latest/meta-data/ resolves to cloud metadata address"
                + " 169.254.169.254, which is always refused (server-side request forgery guard)");
    assertThat(client.attempts()).isEmpty();
  }

  @Test
  void refuses_a_private_address_of_a_routed_endpoint_as_its_outage() {
    SendResult r = sendTo("http://10.0.0.1/", WebhookTransport.Builder::allowHttp);

    assertThat(r.status()).isEqualTo(Status.UNAVAILABLE);
    assertThat(r.scope()).contains("webhook endpoint http://10.0.0.1/");
    assertThat(r.reason().orElseThrow())
        .contains("private (site-local) address 10.0.0.1")
        .contains("allowPrivateAddresses()");
    assertThat(client.attempts()).isEmpty();
  }

  @Test
  void refuses_a_host_name_resolving_to_loopback_without_the_allowance_as_its_outage() {
    SendResult r = sendTo("https://receiver.test:8443/hooks", b -> b);

    assertThat(r.status()).isEqualTo(Status.UNAVAILABLE);
    assertThat(r.scope()).contains("webhook endpoint https://receiver.test:8443/hooks");
    assertThat(r.reason().orElseThrow()).contains("loopback address 127.0.0.1");
    assertThat(lookups).containsExactly("receiver.test");
    assertThat(client.attempts()).isEmpty();
  }

  @Test
  void refuses_a_host_when_any_of_its_addresses_is_private() {
    SendResult r = sendTo("https://mixed.test/", b -> b);

    assertThat(r.status()).isEqualTo(Status.UNAVAILABLE);
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

  @Test
  void logs_a_refused_address_once_at_error_until_the_check_passes_again() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    Map<String, byte[]> answer = new ConcurrentHashMap<>(Map.of("moving.test", LOOPBACK));
    AddressResolver moving =
        host -> List.of(InetAddress.getByAddress(host, answer.get(host))); // no lookup
    try (LogCapture capture = LogCapture.start()) {
      transport =
          WebhookTransport.builder(
                  ev -> WebhookEndpoint.of(URI.create("https://moving.test/hooks"), SECRET))
              .name("moving")
              .httpClient(client)
              .resolver(moving)
              .clock(clock)
              .build();

      List<SendResult> held =
          List.of(
              transport.send(first(event("o-1", "{}"))), transport.send(first(event("o-2", "{}"))));
      answer.put("moving.test", PUBLIC);
      transport.send(first(event("o-3", "{}")));
      // The recording client refused that request, which opened the endpoint's breaker: let it
      // probe again, so that the next batch meets the address check.
      clock.advance(Duration.ofMinutes(1));
      answer.put("moving.test", LOOPBACK);
      transport.send(first(event("o-4", "{}")));

      assertThat(held).extracting(SendResult::status).containsOnly(Status.UNAVAILABLE);
      assertThat(client.attempts()).containsExactly(URI.create("https://moving.test/hooks"));
      List<String> errors =
          capture.lines().stream()
              .filter(l -> l.level().equals("ERROR"))
              .map(LogCapture.Line::text)
              .collect(Collectors.toList());
      assertThat(errors).hasSize(2); // one per outage, not one per batch or event
      assertThat(errors.get(0))
          .startsWith("[moving] Webhook endpoint https://moving.test/hooks refused by the address")
          .contains("loopback address 127.0.0.1")
          .contains("allowPrivateAddresses()")
          .contains("held, no attempt charged");
      assertThat(capture.lines())
          .extracting(LogCapture.Line::text)
          .contains(
              "[moving] Webhook endpoint https://moving.test/hooks passes the address check"
                  + " again; its held events are sent");
    }
  }

  @Test
  void fails_at_build_for_a_known_endpoint_on_a_private_ip_literal_or_localhost() {
    for (String url :
        new String[] {
          "https://127.0.0.1:8443/hooks",
          "https://10.0.0.1/hooks",
          "https://[::1]/hooks",
          "https://[fd12::1]/hooks",
          "https://localhost:8443/hooks",
          "https://api.LOCALHOST/hooks"
        }) {
      URI uri = URI.create(url);

      assertThatThrownBy(() -> WebhookTransport.builder(uri, SECRET).resolver(resolver).build())
          .as(url)
          .isInstanceOf(OutboxConfigurationException.class)
          .hasMessageStartingWith("webhook endpoint " + url + " is on ")
          .hasMessageContaining("call allowPrivateAddresses() on the transport's builder");
      assertThatThrownBy(
              () ->
                  WebhookTransport.builder(
                          WebhookRouter.byDestination(
                              Map.of(
                                  "a",
                                      WebhookEndpoint.of(
                                          URI.create("https://public.test/"), SECRET),
                                  "b", WebhookEndpoint.of(uri, SECRET))))
                      .resolver(resolver)
                      .build())
          .as(url + " by destination")
          .isInstanceOf(OutboxConfigurationException.class)
          .hasMessageContaining(url);
      WebhookTransport.builder(uri, SECRET)
          .resolver(resolver)
          .allowPrivateAddresses()
          .build()
          .close();
    }
    assertThatThrownBy(
            () ->
                WebhookTransport.builder(URI.create("http://169.254.169.254/"), SECRET)
                    .allowHttp()
                    .allowPrivateAddresses()
                    .build())
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("cloud metadata address 169.254.169.254")
        .hasMessageContaining("no option permits it");
    assertThat(lookups).as("decided without a lookup").isEmpty();
  }

  @Test
  void builds_with_a_known_endpoint_whose_host_is_a_name_and_checks_it_at_send_time() {
    transport =
        WebhookTransport.builder(URI.create("https://receiver.test/hooks"), SECRET)
            .httpClient(client)
            .resolver(resolver)
            .build();

    assertThat(lookups).isEmpty();
    assertThat(transport.send(first(event("o-1", "{}"))).status()).isEqualTo(Status.UNAVAILABLE);
    assertThat(lookups).containsExactly("receiver.test");
  }

  private static final byte[] LOOPBACK = {127, 0, 0, 1};
  private static final byte[] PUBLIC = {93, (byte) 184, (byte) 216, 34};
}
