package dev.outboxkit.http;

import static dev.outboxkit.http.Events.SECRET;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.jdbc.OutboxWriter;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.TestDatabases;
import dev.outboxkit.testkit.http.HttpReceiver;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * W3C trace context travels end to end: captured at append time by the writer's context hook (or
 * set by the caller on the event), published by the relay, and received by a real HTTP server as
 * the {@code traceparent} and {@code tracestate} request headers, byte for byte.
 */
class WebhookTraceContextTest {
  static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  static final String TRACESTATE = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7";
  static final String OWN_TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00";

  @Test
  void trace_context_arrives_unchanged_as_http_headers_through_the_relay() throws Exception {
    OutboxWriter writer =
        OutboxWriter.builder()
            .contextHeaders(() -> Map.of("traceparent", TRACEPARENT, "tracestate", TRACESTATE))
            .build();

    try (HttpReceiver receiver = VerifyingReceiver.start(WebhookVerifier.of(SECRET));
        TestDatabase db = TestDatabases.create(Flavor.H2, "WebhookTrace");
        WebhookTransport transport =
            WebhookTransport.builder(receiver.uri("/hooks"), SECRET)
                .allowHttp()
                .allowPrivateAddresses() // the receiver is on 127.0.0.1
                .build()) {
      try (Connection c = db.connect()) {
        OutboxSchema.create(c);
        c.setAutoCommit(false);
        writer.append(c, OutboxEvent.builder("Order", "a-1", "FromHook").payload("{}").build());
        writer.append(
            c,
            OutboxEvent.builder("Order", "a-2", "FromCaller")
                .payload("{}")
                .header("traceparent", OWN_TRACEPARENT)
                .build());
        c.commit();
      }
      try (OutboxRelay relay = OutboxRelay.builder(db.dataSource(), transport).build()) {
        assertThat(relay.runOnce()).isEqualTo(2);
      }

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
