package dev.outboxkit.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.http.WebhookEndpoint;
import dev.outboxkit.http.WebhookSigner;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The request of one event, built without sending it. */
class WebhookRequestsTest {
  private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
  private static final URI URL = URI.create("https://hooks.example.com/in");
  private final WebhookRequests requests =
      new WebhookRequests("test", Clock.fixed(T0, ZoneOffset.UTC), Duration.ofSeconds(7));

  @Test
  void signs_the_payload_and_carries_the_metadata_headers() {
    OutboxEvent e =
        OutboxEvent.builder("Order", "o-1", "OrderPlaced")
            .payload("{\"total\": 42}")
            .tenant("acme")
            .header("correlation-id", "c-7")
            .build();

    HttpRequest r = requests.build(WebhookEndpoint.of(URL, SECRET), URL, OutboxMessage.of(e, 3));

    assertThat(r.timeout()).contains(Duration.ofSeconds(7));
    assertThat(header(r, "webhook-id")).isEqualTo(e.id().toString());
    assertThat(header(r, "webhook-timestamp")).isEqualTo(Long.toString(T0.getEpochSecond()));
    assertThat(header(r, "webhook-signature"))
        .isEqualTo(
            WebhookSigner.of(SECRET).sign(e.id().toString(), T0.getEpochSecond(), e.payload()));
    assertThat(header(r, "outbox-attempt")).isEqualTo("3");
    assertThat(header(r, "outbox-tenant")).isEqualTo("acme");
    assertThat(header(r, "correlation-id")).isEqualTo("c-7");
    assertThat(header(r, "content-type")).isEqualTo("application/json");
  }

  @Test
  void an_event_cannot_forge_reserved_headers_nor_override_the_endpoints() {
    WebhookEndpoint endpoint =
        WebhookEndpoint.builder(URL).secret(SECRET).header("Authorization", "Bearer t0ken").build();
    OutboxEvent e =
        OutboxEvent.builder("Order", "o-1", "OrderPlaced")
            .payload("{}")
            .header("webhook-signature", "v1,forged")
            .header("authorization", "from the event")
            .build();

    HttpRequest r = requests.build(endpoint, URL, OutboxMessage.of(e, 1));

    assertThat(r.headers().allValues("webhook-signature"))
        .hasSize(1)
        .noneMatch(v -> v.contains("forged"));
    assertThat(r.headers().allValues("authorization")).containsExactly("Bearer t0ken");
  }

  private static String header(HttpRequest r, String name) {
    return r.headers().firstValue(name).orElse(null);
  }
}
