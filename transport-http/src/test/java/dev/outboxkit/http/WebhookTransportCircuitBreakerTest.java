package dev.outboxkit.http;

import static dev.outboxkit.http.Events.SECRET;
import static dev.outboxkit.http.Events.event;
import static dev.outboxkit.http.Events.firstAttempts;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.SendResult;
import dev.outboxkit.SendResult.Status;
import dev.outboxkit.testkit.MutableClock;
import dev.outboxkit.testkit.Ports;
import dev.outboxkit.testkit.http.HttpReceiver;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The per-endpoint circuit breaker; time moves through the clock, never by sleeping. */
class WebhookTransportCircuitBreakerTest {
  final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
  HttpReceiver receiver;
  WebhookTransport transport;

  @BeforeEach
  void start() throws Exception {
    receiver =
        VerifyingReceiver.start(WebhookVerifier.builder().secret(SECRET).clock(clock).build());
    transport = transport(WebhookRouter.to(WebhookEndpoint.of(receiver.uri("/hooks"), SECRET)));
  }

  @AfterEach
  void stop() {
    transport.close();
    receiver.close();
  }

  WebhookTransport transport(WebhookRouter router) {
    return WebhookTransport.builder(router)
        .allowHttp()
        .allowPrivateAddresses()
        .clock(clock)
        .requestTimeout(Duration.ofSeconds(5))
        .circuitOpenDuration(Duration.ofSeconds(30))
        .build();
  }

  static List<dev.outboxkit.OutboxMessage> threeAggregates() {
    return firstAttempts(event("o-1", "{}"), event("o-2", "{}"), event("o-3", "{}"));
  }

  @Test
  void opens_when_a_whole_batch_failed_and_answers_unavailable_without_sending() {
    receiver.respond(r -> HttpReceiver.Reply.status(500));
    transport.sendBatch(threeAggregates());
    int sent = receiver.requests().size();

    clock.advance(Duration.ofSeconds(29));
    List<SendResult> whileOpen = transport.sendBatch(threeAggregates());

    // Once a request failed as an outage, no new ones start: 1 to 3 went out, by timing.
    assertThat(sent).isBetween(1, 3);
    assertThat(receiver.requests()).hasSize(sent);
    assertThat(whileOpen).extracting(SendResult::status).containsOnly(Status.UNAVAILABLE);
    assertThat(whileOpen.get(0).reason().orElseThrow())
        .startsWith("circuit open for http://127.0.0.1:")
        .contains("HTTP 500");
  }

  @Test
  void probes_once_the_open_duration_passed_and_closes_when_the_endpoint_answers() {
    receiver.respond(r -> HttpReceiver.Reply.status(500));
    transport.sendBatch(threeAggregates());
    int failed = receiver.requests().size();
    receiver.respond(r -> HttpReceiver.Reply.status(204));

    clock.advance(Duration.ofSeconds(31));
    List<SendResult> afterProbe = transport.sendBatch(threeAggregates());
    List<SendResult> closed = transport.sendBatch(threeAggregates());

    assertThat(afterProbe).containsOnly(SendResult.delivered());
    assertThat(closed).containsOnly(SendResult.delivered());
    assertThat(receiver.requests()).hasSize(failed + 6);
  }

  @Test
  void reopens_when_the_probe_fails_after_one_request() {
    receiver.respond(r -> HttpReceiver.Reply.status(502));
    transport.sendBatch(threeAggregates());
    int failed = receiver.requests().size();

    clock.advance(Duration.ofSeconds(31));
    List<SendResult> probed = transport.sendBatch(threeAggregates());
    List<SendResult> reopened = transport.sendBatch(threeAggregates());

    assertThat(probed).extracting(SendResult::status).containsOnly(Status.UNAVAILABLE);
    assertThat(reopened).extracting(SendResult::status).containsOnly(Status.UNAVAILABLE);
    assertThat(reopened.get(0).reason().orElseThrow()).startsWith("circuit open");
    assertThat(receiver.requests()).hasSize(failed + 1); // the probe only
  }

  @Test
  void keeps_the_circuit_open_as_long_as_a_503_retry_after_asks() {
    receiver.respond(r -> HttpReceiver.Reply.status(503, "Retry-After", "120"));
    transport.sendBatch(threeAggregates());

    clock.advance(Duration.ofSeconds(31));
    transport.sendBatch(threeAggregates());
    int sentWhileOpen = receiver.requests().size();
    clock.advance(Duration.ofSeconds(90));
    transport.sendBatch(threeAggregates());

    assertThat(sentWhileOpen).isBetween(1, 3); // the first batch only; nothing while open
    assertThat(receiver.requests()).hasSize(sentWhileOpen + 1);
  }

  @Test
  void leaves_other_endpoints_alone() throws Exception {
    try (HttpReceiver alive =
        VerifyingReceiver.start(WebhookVerifier.builder().secret(SECRET).clock(clock).build())) {
      receiver.respond(r -> HttpReceiver.Reply.status(500));
      transport.close();
      transport =
          transport(
              WebhookRouter.byDestination(
                  Map.of(
                      "dead", WebhookEndpoint.of(receiver.uri("/hooks"), SECRET),
                      "alive", WebhookEndpoint.of(alive.uri("/hooks"), SECRET))));
      List<dev.outboxkit.OutboxMessage> batch =
          firstAttempts(to("dead", "a"), to("alive", "b"), to("dead", "c"), to("alive", "d"));

      List<SendResult> firstBatch = transport.sendBatch(batch);
      List<SendResult> secondBatch = transport.sendBatch(batch);

      assertThat(firstBatch)
          .extracting(SendResult::status)
          .containsExactly(
              Status.UNAVAILABLE, Status.DELIVERED, Status.UNAVAILABLE, Status.DELIVERED);
      assertThat(secondBatch)
          .extracting(SendResult::status)
          .isEqualTo(
              List.of(Status.UNAVAILABLE, Status.DELIVERED, Status.UNAVAILABLE, Status.DELIVERED));
      assertThat(receiver.requests().size()).isBetween(1, 2); // first batch only, by timing
      assertThat(alive.requests()).hasSize(4);
    }
  }

  @Test
  void treats_a_refused_connection_as_an_outage() throws Exception {
    int closedPort = Ports.unused();
    transport.close();
    transport =
        transport(
            WebhookRouter.to(
                WebhookEndpoint.of(URI.create("http://127.0.0.1:" + closedPort + "/"), SECRET)));

    List<SendResult> results = transport.sendBatch(threeAggregates());

    assertThat(results).extracting(SendResult::status).containsOnly(Status.UNAVAILABLE);
    assertThat(results.get(0).reason().orElseThrow()).contains("cannot connect");
  }

  @Test
  void stops_sending_to_an_endpoint_after_its_first_requests_all_failed() {
    CountDownLatch release = new CountDownLatch(1);
    receiver.respond(r -> HttpReceiver.Reply.hang(release));
    transport.close();
    transport =
        WebhookTransport.builder(WebhookEndpoint.of(receiver.uri("/hooks"), SECRET))
            .allowHttp()
            .allowPrivateAddresses()
            .clock(clock)
            .maxInFlightPerEndpoint(2)
            // 1.5 s: time for both first requests to reach the receiver on a busy machine.
            .requestTimeout(Duration.ofMillis(1500))
            .build();
    try {
      List<SendResult> results =
          transport.sendBatch(
              firstAttempts(
                  event("a", "{}"),
                  event("b", "{}"),
                  event("c", "{}"),
                  event("d", "{}"),
                  event("e", "{}"),
                  event("f", "{}")));

      assertThat(results).extracting(SendResult::status).containsOnly(Status.UNAVAILABLE);
      assertThat(receiver.requests()).hasSize(2); // one wave of timeouts, not three
    } finally {
      release.countDown();
    }
  }

  @Test
  void marks_every_event_of_a_dead_endpoint_unavailable_for_it() {
    receiver.respond(r -> HttpReceiver.Reply.status(500));

    List<SendResult> results =
        transport.sendBatch(firstAttempts(event("A", "{\"n\":1}"), event("A", "{\"n\":2}")));

    assertThat(results).extracting(SendResult::status).containsOnly(Status.UNAVAILABLE);
    assertThat(results).allSatisfy(r -> assertThat(r.scope()).isPresent());
    // Both requests may start together; after the first failure no new one starts.
    assertThat(receiver.requests()).hasSizeBetween(1, 2);
  }

  static OutboxEvent to(String destination, String aggregateId) {
    return OutboxEvent.builder("Order", aggregateId, "OrderPlaced")
        .payload("{}")
        .destination(destination)
        .build();
  }
}
