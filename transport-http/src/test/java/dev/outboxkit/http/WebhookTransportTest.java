package dev.outboxkit.http;

import static dev.outboxkit.http.Events.OTHER_SECRET;
import static dev.outboxkit.http.Events.SECRET;
import static dev.outboxkit.http.Events.event;
import static dev.outboxkit.http.Events.first;
import static dev.outboxkit.http.Events.firstAttempts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.SendResult.Status;
import dev.outboxkit.testkit.MutableClock;
import dev.outboxkit.testkit.http.HttpReceiver;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The transport against a real HTTP server that accepts only correctly signed requests. */
class WebhookTransportTest {
  static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

  final MutableClock clock = new MutableClock(T0);
  HttpReceiver receiver;
  WebhookTransport transport;

  @BeforeEach
  void start() throws Exception {
    receiver =
        VerifyingReceiver.start(WebhookVerifier.builder().secret(SECRET).clock(clock).build())
            .respond(WebhookTransportTest::replyAsTold);
    transport = transport(WebhookEndpoint.of(receiver.uri("/hooks"), SECRET)).build();
  }

  @AfterEach
  void stop() {
    transport.close();
    receiver.close();
  }

  WebhookTransport.Builder transport(WebhookEndpoint endpoint) {
    return WebhookTransport.builder(endpoint)
        .allowHttp()
        .allowPrivateAddresses() // the receiver is on 127.0.0.1
        .clock(clock)
        .requestTimeout(Duration.ofSeconds(5));
  }

  /** Answers as the event's {@code test-reply} header says: {@code status[|retry-after]}. */
  static HttpReceiver.Reply replyAsTold(HttpReceiver.Request r) {
    String told = r.header("test-reply");
    if (told == null) {
      return HttpReceiver.Reply.status(204);
    }
    String[] parts = told.split("\\|", 2);
    int status = Integer.parseInt(parts[0]);
    return parts.length == 2
        ? HttpReceiver.Reply.status(status, "Retry-After", parts[1])
        : HttpReceiver.Reply.status(status);
  }

  @Test
  void delivers_a_signed_request_the_receiver_verifies() {
    WebhookEndpoint endpoint =
        WebhookEndpoint.builder(receiver.uri("/hooks"))
            .secret(SECRET)
            .header("Authorization", "Bearer t0ken")
            .build();
    transport.close();
    transport = transport(endpoint).build();
    OutboxEvent e =
        OutboxEvent.builder("Order", "o-1", "OrderPlaced")
            .payload("{\"total\": 42}")
            .tenant("acme")
            .schemaVersion(3)
            .header("correlation-id", "c-7")
            .header("Authorization", "from the event, overridden")
            .build();

    SendResult result = transport.send(OutboxMessage.of(e, 1));

    assertThat(result).isEqualTo(SendResult.delivered());
    HttpReceiver.Request r = receiver.requests().get(0);
    assertThat(r.refusal()).isNull();
    assertThat(r.path()).isEqualTo("/hooks");
    assertThat(r.bodyText()).isEqualTo("{\"total\": 42}");
    assertThat(r.header("content-type")).isEqualTo("application/json");
    assertThat(r.header("webhook-id")).isEqualTo(e.id().toString());
    assertThat(r.header("webhook-timestamp")).isEqualTo(Long.toString(T0.getEpochSecond()));
    assertThat(r.header("webhook-signature"))
        .isEqualTo(
            WebhookSigner.of(SECRET).sign(e.id().toString(), T0.getEpochSecond(), e.payload()));
    assertThat(r.header("outbox-event-type")).isEqualTo("OrderPlaced");
    assertThat(r.header("outbox-aggregate-type")).isEqualTo("Order");
    assertThat(r.header("outbox-aggregate-id")).isEqualTo("o-1");
    assertThat(r.header("outbox-schema-version")).isEqualTo("3");
    assertThat(r.header("outbox-tenant")).isEqualTo("acme");
    assertThat(r.header("outbox-occurred-at")).isEqualTo(e.occurredAt().toString());
    assertThat(r.header("outbox-attempt")).isEqualTo("1");
    assertThat(r.header("outbox-aggregate-version")).as("appended without a version").isNull();
    assertThat(WebhookHeaders.aggregateVersion(r::header)).isEmpty();
    assertThat(r.header("correlation-id")).isEqualTo("c-7");
    assertThat(r.headers().get("authorization")).containsExactly("Bearer t0ken");
  }

  @Test
  void carries_the_aggregate_version_when_the_event_has_one() {
    OutboxEvent e =
        OutboxEvent.builder("Order", "o-1", "OrderPlaced")
            .payload("{}")
            .aggregateVersion(9_000_000_000L)
            .build();

    assertThat(transport.send(OutboxMessage.of(e, 1))).isEqualTo(SendResult.delivered());

    HttpReceiver.Request r = receiver.requests().get(0);
    assertThat(r.refusal()).isNull();
    assertThat(r.header("outbox-aggregate-version")).isEqualTo("9000000000");
    assertThat(WebhookHeaders.aggregateVersion(r::header)).hasValue(9_000_000_000L);
  }

  @Test
  void signs_each_attempt_afresh_with_the_same_id() {
    OutboxEvent e = event("o-1", "{}");

    SendResult firstTry = transport.send(OutboxMessage.of(e, 1));
    clock.advance(Duration.ofSeconds(90));
    SendResult secondTry = transport.send(OutboxMessage.of(e, 2));

    assertThat(List.of(firstTry, secondTry)).allMatch(SendResult::isDelivered);
    List<HttpReceiver.Request> got = receiver.requests();
    assertThat(got).extracting(HttpReceiver.Request::refusal).containsOnlyNulls();
    assertThat(got).extracting(r -> r.header("webhook-id")).containsOnly(e.id().toString());
    assertThat(got)
        .extracting(r -> r.header("webhook-timestamp"))
        .containsExactly(
            Long.toString(T0.getEpochSecond()), Long.toString(T0.getEpochSecond() + 90));
    assertThat(got.get(0).header("webhook-signature"))
        .isNotEqualTo(got.get(1).header("webhook-signature"));
    assertThat(got).extracting(r -> r.header("outbox-attempt")).containsExactly("1", "2");
  }

  @Test
  void signs_with_every_secret_during_key_rotation() throws Exception {
    try (HttpReceiver onNewSecret =
        VerifyingReceiver.start(
            WebhookVerifier.builder().secret(OTHER_SECRET).clock(clock).build())) {
      WebhookEndpoint oldAndNew =
          WebhookEndpoint.builder(onNewSecret.uri("/hooks"))
              .secret(OTHER_SECRET)
              .secret(SECRET)
              .build();
      WebhookEndpoint toOldReceiver =
          WebhookEndpoint.builder(receiver.uri("/hooks"))
              .secret(OTHER_SECRET)
              .secret(SECRET)
              .build();
      try (WebhookTransport rotating = transport(oldAndNew).build();
          WebhookTransport rotatingToOld = transport(toOldReceiver).build()) {

        assertThat(rotating.send(first(event("o-1", "{}")))).isEqualTo(SendResult.delivered());
        assertThat(rotatingToOld.send(first(event("o-1", "{}")))).isEqualTo(SendResult.delivered());
      }
      assertThat(onNewSecret.requests().get(0).header("webhook-signature").split(" ")).hasSize(2);
      assertThat(receiver.requests().get(0).refusal()).isNull();
    }
  }

  @Test
  void a_receiver_refusing_the_signature_is_that_endpoints_outage_not_poison() {
    // An expired or rotated secret: every event of the endpoint would fail the same way. It is
    // the endpoint's outage (nothing charged, its events held back), never DEAD on the first try.
    transport.close();
    transport = transport(WebhookEndpoint.of(receiver.uri("/hooks"), OTHER_SECRET)).build();

    SendResult r =
        transport.sendBatch(firstAttempts(event("o-1", "{}"), event("o-2", "{}"))).get(0);

    assertThat(r.status()).isEqualTo(Status.UNAVAILABLE);
    assertThat(r.scope()).hasValue("webhook endpoint " + receiver.uri("/hooks"));
    assertThat(r.reason())
        .hasValueSatisfying(s -> assertThat(s).contains("HTTP 401").contains("credentials"));
    assertThat(receiver.requests().get(0).refusal()).startsWith("NO_MATCHING_SIGNATURE");
  }

  @Test
  void a_status_policy_reads_statuses_its_own_way() {
    transport.close();
    transport =
        transport(WebhookEndpoint.of(receiver.uri("/hooks"), SECRET))
            .statusPolicy(
                status ->
                    status == 422
                        ? WebhookStatusPolicy.Verdict.REJECT
                        : WebhookStatusPolicy.STANDARD.classify(status))
            .build();

    List<SendResult> results =
        transport.sendBatch(firstAttempts(event("o-0", "{}"), event("o-1", "{}", "422")));

    assertThat(results.get(0)).isEqualTo(SendResult.delivered());
    assertThat(results.get(1).status()).isEqualTo(Status.REJECT);
    assertThat(results.get(1).reason().orElseThrow()).contains("HTTP 422");
  }

  @ParameterizedTest(name = "HTTP {0} -> {1}")
  @CsvSource({
    "200, DELIVERED",
    "201, DELIVERED",
    "202, DELIVERED",
    "204, DELIVERED",
    "300, RETRY",
    "301, RETRY",
    "302, RETRY",
    "307, RETRY",
    "308, RETRY",
    "400, RETRY",
    "401, UNAVAILABLE",
    "403, UNAVAILABLE",
    "404, RETRY",
    "408, RETRY",
    "409, RETRY",
    "410, REJECT",
    "413, RETRY",
    "422, RETRY",
    "429, RETRY",
    "500, RETRY",
    "502, RETRY",
    "503, RETRY",
    "504, RETRY"
  })
  void classifies_the_status_code(int status, Status expected) {
    // A delivered neighbour keeps the endpoint "answering", so the breaker stays out of it.
    OutboxEvent probe = event("o-1", "{\"card\": \"4111-1111-payload\"}", Integer.toString(status));
    List<SendResult> results = transport.sendBatch(firstAttempts(event("o-0", "{}"), probe));

    assertThat(results.get(0)).isEqualTo(SendResult.delivered());
    SendResult r = results.get(1);
    assertThat(r.status()).isEqualTo(expected);
    if (expected != Status.DELIVERED) {
      assertThat(r.reason().orElseThrow())
          .contains("HTTP " + status)
          .contains("127.0.0.1")
          .doesNotContain("1111-payload") // no payload (text no port or host can hold)
          .doesNotContain("secret-looking") // no response body
          .doesNotContain(SECRET.substring(6, 14));
    }
    if (status == 410) {
      assertThat(r.reason().orElseThrow()).contains("gone");
    }
  }

  @Test
  void never_follows_a_redirect() {
    URI elsewhere = receiver.uri("/elsewhere");
    receiver.respond(
        r ->
            r.path().equals("/hooks")
                ? HttpReceiver.Reply.status(307, "Location", elsewhere.toString())
                : HttpReceiver.Reply.status(204));

    SendResult r = transport.send(first(event("o-1", "{}")));

    assertThat(r.status()).isEqualTo(Status.RETRY);
    assertThat(r.reason().orElseThrow()).contains("HTTP 307").contains("redirect not followed");
    assertThat(receiver.requests("/elsewhere")).isEmpty();
  }

  @Test
  void honours_retry_after_in_seconds_on_429_and_503() {
    List<SendResult> results =
        transport.sendBatch(
            firstAttempts(
                event("o-0", "{}"), event("o-1", "{}", "429|120"), event("o-2", "{}", "503|7")));

    assertThat(results.get(1).status()).isEqualTo(Status.RETRY);
    assertThat(results.get(1).retryAfter()).contains(Duration.ofSeconds(120));
    assertThat(results.get(2).status()).isEqualTo(Status.RETRY);
    assertThat(results.get(2).retryAfter()).contains(Duration.ofSeconds(7));
  }

  @Test
  void honours_retry_after_as_an_http_date_relative_to_the_clock() {
    // T0 is 2030-01-01T00:00:00Z, a Tuesday.
    List<SendResult> results =
        transport.sendBatch(
            firstAttempts(
                event("o-0", "{}"), event("o-1", "{}", "429|Tue, 01 Jan 2030 00:02:30 GMT")));

    assertThat(results.get(1).retryAfter()).contains(Duration.ofSeconds(150));
  }

  @Test
  void clamps_retry_after_to_the_configured_maximum() {
    transport.close();
    transport =
        transport(WebhookEndpoint.of(receiver.uri("/hooks"), SECRET))
            .maxRetryAfter(Duration.ofMinutes(10))
            .build();

    List<SendResult> results =
        transport.sendBatch(
            firstAttempts(
                event("o-0", "{}"),
                event("o-1", "{}", "429|86400"),
                event("o-2", "{}", "429|Wed, 01 Jan 2031 00:00:00 GMT"),
                event("o-3", "{}", "429|whenever")));

    assertThat(results.get(1).retryAfter()).contains(Duration.ofMinutes(10));
    assertThat(results.get(2).retryAfter()).contains(Duration.ofMinutes(10));
    assertThat(results.get(3).status()).isEqualTo(Status.RETRY);
    assertThat(results.get(3).retryAfter()).isEmpty();
  }

  @Test
  void retries_when_the_receiver_hangs_past_the_request_timeout() {
    CountDownLatch release = new CountDownLatch(1);
    receiver.respond(
        r ->
            r.header("test-reply") != null
                ? HttpReceiver.Reply.hang(release)
                : HttpReceiver.Reply.status(204));
    transport.close();
    transport =
        // 1.5 s: the healthy request beside the hanging one (a first connection) must fit too.
        transport(WebhookEndpoint.of(receiver.uri("/hooks"), SECRET))
            .requestTimeout(Duration.ofMillis(1500))
            .build();
    try {
      List<SendResult> results =
          transport.sendBatch(firstAttempts(event("o-1", "{}", "hang"), event("o-2", "{}")));

      assertThat(results.get(0).status()).isEqualTo(Status.RETRY);
      assertThat(results.get(0).reason().orElseThrow()).contains("no response").contains("PT1.5S");
      assertThat(results.get(0).isUncertain()).as("the request may have arrived").isTrue();
      assertThat(results.get(1)).isEqualTo(SendResult.delivered());
    } finally {
      release.countDown();
    }
  }

  @Test
  void answers_unavailable_when_every_request_of_the_batch_fails() {
    receiver.respond(r -> HttpReceiver.Reply.status(500));

    List<SendResult> results =
        transport.sendBatch(
            firstAttempts(event("o-1", "{}"), event("o-2", "{}"), event("o-3", "{}")));

    assertThat(results).extracting(SendResult::status).containsOnly(Status.UNAVAILABLE);
    assertThat(results.get(0).reason().orElseThrow()).contains("3 of 3").contains("HTTP 500");
  }

  @Test
  void keeps_per_aggregate_order_and_bounds_requests_in_flight() {
    transport.close();
    transport =
        transport(WebhookEndpoint.of(receiver.uri("/hooks"), SECRET))
            .maxInFlightPerEndpoint(3)
            .build();
    receiver.respond(r -> HttpReceiver.Reply.delayed(204, 15));
    List<OutboxEvent> events = new ArrayList<>();
    for (int seq = 0; seq < 4; seq++) {
      for (int agg = 0; agg < 10; agg++) {
        events.add(event("agg-" + agg, "{\"seq\": " + seq + "}"));
      }
    }

    List<SendResult> results = transport.sendBatch(events.stream().map(Events::first).toList());

    assertThat(results).hasSize(40).containsOnly(SendResult.delivered());
    Map<String, List<String>> arrivedPerAggregate =
        receiver.requests().stream()
            .collect(
                Collectors.groupingBy(
                    r -> r.header("outbox-aggregate-id"),
                    Collectors.mapping(HttpReceiver.Request::bodyText, Collectors.toList())));
    assertThat(arrivedPerAggregate).hasSize(10);
    arrivedPerAggregate
        .values()
        .forEach(
            bodies ->
                assertThat(bodies)
                    .containsExactly(
                        "{\"seq\": 0}", "{\"seq\": 1}", "{\"seq\": 2}", "{\"seq\": 3}"));
    assertThat(receiver.maxInFlight()).isBetween(2, 3);
  }

  @Test
  void bounds_requests_in_flight_across_endpoints() {
    transport.close();
    WebhookEndpoint left = WebhookEndpoint.of(receiver.uri("/left"), SECRET);
    WebhookEndpoint right = WebhookEndpoint.of(receiver.uri("/right"), SECRET);
    transport =
        WebhookTransport.builder(ev -> ev.aggregateId().startsWith("l") ? left : right)
            .allowHttp()
            .allowPrivateAddresses()
            .clock(clock)
            .maxInFlight(4)
            .maxInFlightPerEndpoint(3)
            .build();
    receiver.respond(r -> HttpReceiver.Reply.delayed(204, 15));
    List<OutboxMessage> batch = new ArrayList<>();
    for (int agg = 0; agg < 10; agg++) {
      batch.add(first(event("l" + agg, "{}")));
      batch.add(first(event("r" + agg, "{}")));
    }

    assertThat(transport.sendBatch(batch)).containsOnly(SendResult.delivered());

    assertThat(receiver.requests("/left")).hasSize(10);
    assertThat(receiver.requests("/right")).hasSize(10);
    assertThat(receiver.maxInFlight()).isBetween(2, 4);
  }

  @Test
  void answers_unavailable_for_unconfirmed_events_when_the_caller_is_interrupted()
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    receiver.respond(r -> HttpReceiver.Reply.hang(release));
    OutboxEvent a1 = event("A", "{\"n\":1}");
    AtomicReference<List<SendResult>> results = new AtomicReference<>();
    AtomicBoolean interruptKept = new AtomicBoolean();
    // One request at a time: the second event is still waiting for its turn when the call ends.
    transport.close();
    transport =
        transport(WebhookEndpoint.of(receiver.uri("/hooks"), SECRET))
            .maxInFlightPerEndpoint(1)
            .build();
    Thread caller =
        new Thread(
            () -> {
              results.set(transport.sendBatch(firstAttempts(a1, event("B", "{\"n\":2}"))));
              interruptKept.set(Thread.currentThread().isInterrupted());
            });
    try {
      caller.start();
      for (int i = 0; i < 500 && receiver.requests().isEmpty(); i++) {
        Thread.sleep(10);
      }
      caller.interrupt();
      caller.join(5_000);
    } finally {
      release.countDown();
    }

    assertThat(caller.isAlive()).isFalse();
    assertThat(interruptKept).isTrue();
    assertThat(results.get())
        .containsExactly(
            SendResult.unavailable(
                "not confirmed: interrupted before "
                    + receiver.uri("/hooks")
                    + " answered; it may have received the request"),
            SendResult.unavailable("not confirmed: interrupted before it was sent"));
    // Half a batch says nothing about the endpoint: no breaker opened (once the held request is
    // finished, as above).
    receiver.awaitHandled(Duration.ofSeconds(15));
    receiver.respond(r -> HttpReceiver.Reply.status(204));
    assertThat(transport.send(first(event("B", "{}")))).isEqualTo(SendResult.delivered());
  }

  @Test
  void send_batch_async_completes_events_as_they_are_answered_while_a_slow_request_is_open()
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    receiver.respond(
        r -> r.bodyText().contains("slow") ? HttpReceiver.Reply.hang(release) : replyAsTold(r));
    try {
      List<CompletableFuture<SendResult>> futures =
          transport.sendBatchAsync(
              firstAttempts(
                  event("A", "{\"slow\":1}"), event("B", "{\"n\":2}"), event("C", "{}", "410")));

      // One endpoint that answered is not down: its answers are final at once.
      assertThat(futures.get(1).get(5, TimeUnit.SECONDS)).isEqualTo(SendResult.delivered());
      assertThat(futures.get(2).get(5, TimeUnit.SECONDS).status()).isEqualTo(Status.REJECT);
      assertThat(futures.get(0)).isNotDone();

      release.countDown();
      assertThat(futures.get(0).get(5, TimeUnit.SECONDS)).isEqualTo(SendResult.delivered());
    } finally {
      release.countDown();
    }
  }

  @Test
  void cancelling_a_future_of_send_batch_async_stops_the_batch_without_a_breaker_verdict()
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    receiver.respond(r -> HttpReceiver.Reply.hang(release));
    try {
      List<CompletableFuture<SendResult>> futures =
          transport.sendBatchAsync(firstAttempts(event("A", "{}"), event("B", "{}")));
      for (int i = 0; i < 500 && receiver.requests().size() < 2; i++) {
        Thread.sleep(10);
      }

      futures.get(0).cancel(true);

      assertThat(futures.get(1).get(5, TimeUnit.SECONDS))
          .isEqualTo(
              SendResult.unavailable(
                  "not confirmed: interrupted before "
                      + receiver.uri("/hooks")
                      + " answered; it may have received the request"));
    } finally {
      release.countDown();
    }
    // Half a batch says nothing about the endpoint: no breaker opened. The held requests are
    // finished first, so that the next one does not race the server closing their connections.
    receiver.awaitHandled(Duration.ofSeconds(15));
    receiver.respond(r -> HttpReceiver.Reply.status(204));
    assertThat(transport.send(first(event("B", "{}")))).isEqualTo(SendResult.delivered());
  }

  @Test
  void gives_each_event_of_an_aggregate_its_own_result_without_holding_any_back() {
    OutboxEvent a1 = event("A", "{\"n\":1}", "410");
    OutboxEvent a2 = event("A", "{\"n\":2}");
    OutboxEvent b1 = event("B", "{\"n\":1}");
    OutboxEvent a3 = event("A", "{\"n\":3}");

    List<SendResult> results = transport.sendBatch(firstAttempts(a1, a2, b1, a3));

    // Order within a batch is the relay's business: it never gives this transport two events
    // of one aggregate in one call in ordered mode, and in unordered mode none is innocent.
    assertThat(transport.keepsOrderWithinBatch()).isFalse();
    assertThat(transport.classifiesFailures()).isTrue();
    assertThat(results)
        .extracting(SendResult::status)
        .containsExactly(Status.REJECT, Status.DELIVERED, Status.DELIVERED, Status.DELIVERED);
    assertThat(receiver.requests())
        .extracting(r -> r.header("webhook-id"))
        .containsExactlyInAnyOrder(
            a1.id().toString(), a2.id().toString(), b1.id().toString(), a3.id().toString());
  }

  @Test
  void does_not_let_event_headers_forge_transport_headers() {
    OutboxEvent e =
        OutboxEvent.builder("Order", "o-1", "OrderPlaced")
            .payload("{}")
            .header("webhook-signature", "v1,forged")
            .header("Webhook-Id", "forged-id")
            .header("Content-Type", "text/plain")
            .header("outbox-aggregate-id", "forged")
            .build();

    assertThat(transport.send(first(e))).isEqualTo(SendResult.delivered());

    HttpReceiver.Request r = receiver.requests().get(0);
    assertThat(r.refusal()).isNull();
    assertThat(r.headers().get("webhook-signature"))
        .hasSize(1)
        .noneMatch(v -> v.contains("forged"));
    assertThat(r.headers().get("webhook-id")).containsExactly(e.id().toString());
    assertThat(r.headers().get("content-type")).containsExactly("application/json");
    assertThat(r.headers().get("outbox-aggregate-id")).containsExactly("o-1");
  }

  @Test
  void percent_encodes_header_values_outside_printable_ascii() {
    OutboxEvent e =
        OutboxEvent.builder("Bestellung", "\u00e4-1", "Aufgegeben")
            .payload("{}")
            .header("note", "caf\u00e9")
            .build();

    assertThat(transport.send(first(e))).isEqualTo(SendResult.delivered());

    HttpReceiver.Request r = receiver.requests().get(0);
    assertThat(r.header("outbox-aggregate-id")).isEqualTo("%C3%A4-1");
    assertThat(r.header("note")).isEqualTo("caf%C3%A9");
  }

  @Test
  void encodes_header_values_reversibly_so_receivers_decode_each_to_its_original() {
    // Before, the check mark and the literal text of its encoding both arrived as %E2%9C%93, and
    // "100% ✓" arrived as "100% %E2%9C%93", which no decoder can tell apart from anything.
    String check = "\u2713";
    String literal = "%E2%9C%93";
    String mixed = "100% \u2713";
    OutboxEvent e =
        OutboxEvent.builder("Order", mixed, "OrderPlaced")
            .payload("{}")
            .tenant(literal)
            .header("x-check", check)
            .header("x-literal", literal)
            .header("x-mixed", mixed)
            .header("x-plain", "Order 42/a-b_c")
            .build();

    assertThat(transport.send(first(e))).isEqualTo(SendResult.delivered());

    HttpReceiver.Request r = receiver.requests().get(0);
    assertThat(r.refusal()).isNull();
    assertThat(List.of(r.header("x-check"), r.header("x-literal"), r.header("x-mixed")))
        .containsExactly("%E2%9C%93", "%25E2%259C%2593", "100%25 %E2%9C%93");
    assertThat(WebhookHeaders.decode(r.header("x-check"))).isEqualTo(check);
    assertThat(WebhookHeaders.decode(r.header("x-literal"))).isEqualTo(literal);
    assertThat(WebhookHeaders.decode(r.header("x-mixed"))).isEqualTo(mixed);
    assertThat(WebhookHeaders.decode(r.header(WebhookHeaders.AGGREGATE_ID))).isEqualTo(mixed);
    assertThat(WebhookHeaders.decode(r.header(WebhookHeaders.TENANT))).isEqualTo(literal);
    // Printable ASCII without % is untouched on the wire, and decoding leaves it alone.
    assertThat(r.header("x-plain")).isEqualTo("Order 42/a-b_c");
    assertThat(WebhookHeaders.decode(r.header("x-plain"))).isEqualTo("Order 42/a-b_c");
    assertThat(r.header(WebhookHeaders.EVENT_TYPE)).isEqualTo("OrderPlaced");
  }

  @Test
  void sends_binary_payloads_byte_for_byte_with_their_content_type() {
    byte[] bytes = {0, 1, 2, (byte) 0xff, (byte) 0xfe};
    OutboxEvent e =
        OutboxEvent.builder("Order", "o-1", "OrderPlaced")
            .payload(bytes, "application/octet-stream")
            .build();

    assertThat(transport.send(first(e))).isEqualTo(SendResult.delivered());

    HttpReceiver.Request r = receiver.requests().get(0);
    assertThat(r.body()).isEqualTo(bytes);
    assertThat(r.header("content-type")).isEqualTo("application/octet-stream");
    assertThat(r.refusal()).isNull();
  }

  @Test
  void rejects_events_without_an_endpoint_and_retries_when_the_router_fails() {
    WebhookEndpoint endpoint = WebhookEndpoint.of(receiver.uri("/hooks"), SECRET);
    try (WebhookTransport routed =
            WebhookTransport.builder(WebhookRouter.byDestination(Map.of("orders", endpoint)))
                .allowHttp()
                .allowPrivateAddresses()
                .clock(clock)
                .build();
        WebhookTransport failing =
            WebhookTransport.builder(
                    ev -> {
                      throw new IllegalStateException("tenant registry down");
                    })
                .build()) {
      OutboxEvent toOrders =
          OutboxEvent.builder("Order", "o-1", "OrderPlaced")
              .payload("{}")
              .destination("orders")
              .build();
      OutboxEvent toNowhere =
          OutboxEvent.builder("Order", "o-2", "OrderPlaced")
              .payload("{}")
              .destination("billing")
              .build();

      List<SendResult> results = routed.sendBatch(firstAttempts(toOrders, toNowhere));
      SendResult routerFailed = failing.send(first(toOrders));

      assertThat(results.get(0)).isEqualTo(SendResult.delivered());
      assertThat(results.get(1))
          .isEqualTo(
              SendResult.reject(
                  "no webhook endpoint for event type OrderPlaced, destination billing"));
      assertThat(routerFailed)
          .isEqualTo(
              SendResult.retry(
                  "webhook router failed: IllegalStateException: tenant registry down", null));
    }
  }

  @Test
  void refuses_plain_http_unless_allowed() {
    assertThatThrownBy(
            () -> WebhookTransport.builder(receiver.uri("/hooks"), SECRET).clock(clock).build())
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("allowHttp()");

    WebhookEndpoint plain = WebhookEndpoint.of(receiver.uri("/hooks"), SECRET);
    try (WebhookTransport routed =
        WebhookTransport.builder(ev -> plain).allowPrivateAddresses().clock(clock).build()) {
      SendResult r = routed.send(first(event("o-1", "{}")));

      assertThat(r.status()).isEqualTo(Status.REJECT);
      assertThat(r.reason().orElseThrow()).contains("plain http is not allowed");
    }
    assertThat(receiver.requests()).isEmpty();
  }

  @Test
  void answers_unavailable_after_close_without_sending() {
    transport.close();

    assertThat(transport.sendBatch(firstAttempts(event("o-1", "{}"), event("o-2", "{}"))))
        .extracting(SendResult::status)
        .containsOnly(Status.UNAVAILABLE);
    assertThat(receiver.requests()).isEmpty();
  }

  @Test
  void returns_nothing_for_an_empty_batch() {
    assertThat(transport.sendBatch(List.of())).isEmpty();
  }

  @Test
  void validates_options_where_they_are_set() {
    WebhookTransport.Builder b = WebhookTransport.builder(URI.create("https://x.example/"), SECRET);

    assertThatThrownBy(() -> b.maxInFlightPerEndpoint(0))
        .isInstanceOf(OutboxConfigurationException.class);
    assertThatThrownBy(() -> b.requestTimeout(Duration.ZERO))
        .isInstanceOf(OutboxConfigurationException.class);
    assertThatThrownBy(() -> b.connectTimeout(Duration.ofHours(1)))
        .isInstanceOf(OutboxConfigurationException.class);
    assertThatThrownBy(() -> b.maxRetryAfter(Duration.ZERO))
        .isInstanceOf(OutboxConfigurationException.class);
    assertThatThrownBy(() -> b.circuitOpenDuration(Duration.ofSeconds(-1)))
        .isInstanceOf(OutboxConfigurationException.class);
    assertThatThrownBy(() -> b.name("has space")).isInstanceOf(OutboxConfigurationException.class);
    assertThatThrownBy(
            () ->
                b.httpClient(
                    java.net.http.HttpClient.newBuilder()
                        .followRedirects(java.net.http.HttpClient.Redirect.NORMAL)
                        .build()))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("NEVER");
    assertThatThrownBy(
            () ->
                WebhookTransport.builder(URI.create("https://x.example/"), SECRET)
                    .connectTimeout(Duration.ofSeconds(1))
                    .httpClient(new RecordingHttpClient())
                    .build())
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("connect timeout");
  }
}
