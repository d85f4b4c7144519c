package dev.outboxkit.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.http.AddressResolver;
import dev.outboxkit.http.WebhookStatusPolicy;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The state the engine keeps per endpoint between batches; sending itself is specified by the
 * transport's tests.
 */
class WebhookEngineTest {
  private final HttpClientHandle http =
      new HttpClientHandle("engine-test", null, Duration.ofSeconds(1), null);
  private final WebhookEngine engine =
      new WebhookEngine(
          "engine-test",
          e -> null,
          http,
          4,
          2,
          Duration.ofSeconds(30),
          Clock.systemUTC(),
          new DestinationGuard(AddressResolver.system(), true, true),
          new WebhookRequests("engine-test", Clock.systemUTC(), Duration.ofSeconds(1)),
          new ResponseClassifier(
              WebhookStatusPolicy.STANDARD,
              Clock.systemUTC(),
              Duration.ofHours(1),
              Duration.ofSeconds(1),
              Duration.ofSeconds(1)),
          1024);

  @AfterEach
  void close() {
    http.close();
  }

  @Test
  void one_endpoint_keeps_one_state_across_batches() {
    EndpointState first = engine.state(URI.create("https://a.example/hooks"));

    assertThat(engine.state(URI.create("https://a.example/hooks"))).isSameAs(first);
    assertThat(engine.state(URI.create("https://b.example/hooks"))).isNotSameAs(first);
  }

  @Test
  void at_the_bound_closed_endpoints_are_forgotten_and_open_circuits_kept() {
    URI down = URI.create("https://down.example/hooks");
    EndpointState downState = engine.state(down);
    downState.breaker.recordOutage(Instant.now().plusSeconds(30), "HTTP 503");
    EndpointState healthy = engine.state(URI.create("https://up-0.example/hooks"));
    for (int i = 1; i < WebhookEngine.MAX_TRACKED_ENDPOINTS - 1; i++) {
      engine.state(URI.create("https://up-" + i + ".example/hooks"));
    }

    engine.state(URI.create("https://one-more.example/hooks"));

    assertThat(engine.state(down)).as("an open circuit is remembered").isSameAs(downState);
    assertThat(engine.state(URI.create("https://up-0.example/hooks")))
        .as("a closed one is forgotten: it starts afresh")
        .isNotSameAs(healthy);
  }
}
