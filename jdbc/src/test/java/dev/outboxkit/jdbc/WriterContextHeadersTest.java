package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.InvalidEventException;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.testing.RecordingTransport;
import dev.outboxkit.testkit.Flavor;
import java.sql.Connection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link OutboxWriter.Builder#contextHeaders}: the caller's trace context is captured at append
 * time and reaches the transport unchanged through the relay.
 */
class WriterContextHeadersTest extends DatabaseTest {
  static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  static final String TRACESTATE = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7";

  @Override
  protected Flavor flavor() {
    return Flavor.H2;
  }

  private static OutboxEvent event(String id) {
    return OutboxEvent.builder("Order", id, "OrderPlaced").payload("{}").build();
  }

  private List<OutboxEvent> drain(int expected) throws Exception {
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay = OutboxRelay.builder(ds, transport).build()) {
      assertThat(relay.runOnce()).isEqualTo(expected);
    }
    return transport.deliveredEvents();
  }

  @Test
  void append_adds_the_callers_trace_context_and_the_relay_delivers_it_unchanged()
      throws Exception {
    Map<String, String> context = Map.of("traceparent", TRACEPARENT, "tracestate", TRACESTATE);
    OutboxWriter writer = OutboxWriter.builder().contextHeaders(() -> context).build();
    try (Connection c = transaction()) {
      writer.append(c, event("o-1"));
      c.commit();
    }

    List<OutboxEvent> delivered = drain(1);

    assertThat(delivered.get(0).headers())
        .containsEntry("traceparent", TRACEPARENT)
        .containsEntry("tracestate", TRACESTATE);
  }

  @Test
  void a_header_the_event_carries_wins_over_the_context_in_any_letter_case() throws Exception {
    String own = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    OutboxWriter writer =
        OutboxWriter.builder()
            .contextHeaders(() -> Map.of("traceparent", TRACEPARENT, "tracestate", TRACESTATE))
            .build();
    try (Connection c = transaction()) {
      writer.append(
          c,
          OutboxEvent.builder("Order", "o-1", "OrderPlaced")
              .payload("{}")
              .header("TraceParent", own)
              .build());
      c.commit();
    }

    Map<String, String> headers = drain(1).get(0).headers();

    assertThat(headers).containsEntry("TraceParent", own).doesNotContainKey("traceparent");
    assertThat(headers).containsEntry("tracestate", TRACESTATE);
  }

  @Test
  void the_supplier_is_asked_once_per_append_all_and_may_have_no_context() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    OutboxWriter writer =
        OutboxWriter.builder()
            .contextHeaders(
                () -> {
                  calls.incrementAndGet();
                  return null; // no current span
                })
            .build();
    try (Connection c = transaction()) {
      writer.appendAll(c, List.of(event("o-1"), event("o-2"), event("o-3")));
      c.commit();
    }

    assertThat(calls).hasValue(1);
    assertThat(drain(3)).allSatisfy(e -> assertThat(e.headers()).isEmpty());
  }

  @Test
  void append_refuses_a_malformed_traceparent_from_the_context_and_writes_nothing()
      throws Exception {
    Map<String, String> bad = new HashMap<>();
    bad.put("traceparent", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01");
    OutboxWriter writer = OutboxWriter.builder().contextHeaders(() -> bad).build();

    try (Connection c = transaction()) {
      assertThatThrownBy(() -> writer.append(c, event("o-1")))
          .isInstanceOf(InvalidEventException.class)
          .hasMessageContaining("W3C trace context");
      bad.put("traceparent", TRACEPARENT);
      bad.put("bad name", "x");
      assertThatThrownBy(() -> writer.append(c, event("o-2")))
          .isInstanceOf(InvalidEventException.class)
          .hasMessageContaining("bad name");
      c.commit();
    }

    assertThat(rows()).isZero();
  }
}
