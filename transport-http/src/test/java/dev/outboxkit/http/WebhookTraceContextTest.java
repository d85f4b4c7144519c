package dev.outboxkit.http;

import static dev.outboxkit.http.Events.SECRET;
import static dev.outboxkit.jdbc.TracedEvents.OWN_TRACEPARENT;
import static dev.outboxkit.jdbc.TracedEvents.TRACEPARENT;
import static dev.outboxkit.jdbc.TracedEvents.TRACESTATE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.TracedEvents;
import dev.outboxkit.testkit.http.HttpReceiver;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * W3C trace context travels end to end: captured at append time by the writer's context hook (or
 * set by the caller on the event), published by the relay, and received by a real HTTP server as
 * the {@code traceparent} and {@code tracestate} request headers, byte for byte.
 */
class WebhookTraceContextTest {
  @Test
  void trace_context_arrives_unchanged_as_http_headers_through_the_relay() throws Exception {
    try (HttpReceiver receiver = VerifyingReceiver.start(WebhookVerifier.of(SECRET));
        WebhookTransport transport =
            WebhookTransport.builder(receiver.uri("/hooks"), SECRET)
                .allowHttp()
                .allowPrivateAddresses() // the receiver is on 127.0.0.1
                .build()) {
      TracedEvents.appendAndRelay(transport, "Order", OutboxRelay.DEFAULT_SEND_TIMEOUT);

      List<HttpReceiver.Request> requests = receiver.requests();
      assertThat(requests).hasSize(2).allSatisfy(r -> assertThat(r.refusal()).isNull());
      HttpReceiver.Request fromHook = byAggregate(requests, "a-1");
      HttpReceiver.Request fromCaller = byAggregate(requests, "a-2");
      assertThat(fromHook.headers().get("traceparent")).containsExactly(TRACEPARENT);
      assertThat(fromHook.headers().get("tracestate")).containsExactly(TRACESTATE);
      assertThat(fromCaller.headers().get("traceparent")).containsExactly(OWN_TRACEPARENT);
      assertThat(fromCaller.headers().get("tracestate")).containsExactly(TRACESTATE);
    }
  }

  private static HttpReceiver.Request byAggregate(List<HttpReceiver.Request> requests, String id) {
    return requests.stream()
        .filter(r -> id.equals(r.header(WebhookHeaders.AGGREGATE_ID)))
        .findFirst()
        .orElseThrow();
  }
}
