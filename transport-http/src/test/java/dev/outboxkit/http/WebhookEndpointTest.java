package dev.outboxkit.http;

import static dev.outboxkit.http.Events.OTHER_SECRET;
import static dev.outboxkit.http.Events.SECRET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.OutboxConfigurationException;
import java.net.URI;
import org.junit.jupiter.api.Test;

class WebhookEndpointTest {
  static final URI URL = URI.create("https://hooks.example.com/in?token=abc123");

  @Test
  void toString_shows_url_without_query_and_no_secrets_or_header_values() {
    WebhookEndpoint ep =
        WebhookEndpoint.builder(URL)
            .secret(SECRET)
            .secret(OTHER_SECRET)
            .header("Authorization", "Bearer very-secret-token")
            .build();

    assertThat(ep.toString())
        .isEqualTo(
            "WebhookEndpoint[https://hooks.example.com/in?\u2026, secrets=2, headers=[Authorization]]")
        .doesNotContain("abc123")
        .doesNotContain("very-secret-token");
    assertThat(ep.secretCount()).isEqualTo(2);
  }

  @Test
  void refuses_urls_that_are_not_absolute_http_or_https() {
    for (String url : new String[] {"ftp://x.example/", "/relative", "file:///etc/passwd"}) {
      assertThatThrownBy(() -> WebhookEndpoint.of(URI.create(url), SECRET))
          .as(url)
          .isInstanceOf(OutboxConfigurationException.class)
          .hasMessageContaining("https://");
    }
  }

  @Test
  void refuses_user_info_in_the_url_without_echoing_it() {
    assertThatThrownBy(
            () -> WebhookEndpoint.of(URI.create("https://bob:hunter2@x.example/"), SECRET))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("user info")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void refuses_a_fragment_and_a_missing_host() {
    assertThatThrownBy(() -> WebhookEndpoint.of(URI.create("https://x.example/#frag"), SECRET))
        .isInstanceOf(OutboxConfigurationException.class);
    assertThatThrownBy(() -> WebhookEndpoint.of(URI.create("https://bad_host.example/"), SECRET))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("host");
  }

  @Test
  void needs_at_least_one_secret() {
    assertThatThrownBy(() -> WebhookEndpoint.builder(URL).build())
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("needs at least one secret")
        .hasMessageNotContaining("abc123");
  }

  @Test
  void refuses_reserved_and_malformed_headers_without_echoing_values() {
    WebhookEndpoint.Builder b = WebhookEndpoint.builder(URL).secret(SECRET);

    for (String reserved :
        new String[] {"webhook-signature", "Webhook-Id", "content-type", "Host", "outbox-tenant"}) {
      assertThatThrownBy(() -> b.header(reserved, "x"))
          .as(reserved)
          .isInstanceOf(OutboxConfigurationException.class)
          .hasMessageContaining("set by the webhook transport");
    }
    assertThatThrownBy(() -> b.header("bad name", "x"))
        .isInstanceOf(OutboxConfigurationException.class);
    assertThatThrownBy(() -> b.header("x-token", "line\r\nbreak-secret"))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageNotContaining("break-secret");
    b.header("X-Api-Key", "k");
    assertThatThrownBy(() -> b.header("x-api-key", "k2"))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("twice");
  }
}
