package dev.outboxkit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class RoutingTest {
  private final OutboxEvent routed =
      OutboxEvent.builder("Order", "o1", "OrderPlaced")
          .payload("{}")
          .destination("orders.v2")
          .build();
  private final OutboxEvent plain =
      OutboxEvent.builder("Order", "o2", "OrderPlaced").payload("{}").build();

  private static String route(OutboxEvent event, Function<OutboxEvent, String> router) {
    return Routing.route(event, router, "outbox.", name -> "topic:" + name);
  }

  @Test
  void the_router_comes_first_then_the_destination_then_the_prefixed_aggregate_type() {
    assertThat(route(routed, e -> "by-router")).isEqualTo("by-router");
    assertThat(route(routed, null)).isEqualTo("topic:orders.v2");
    assertThat(route(plain, null)).isEqualTo("topic:outbox.Order");
  }

  @Test
  void a_router_that_answers_null_defers_to_the_event() {
    assertThat(route(routed, e -> null)).isEqualTo("topic:orders.v2");
    assertThat(route(plain, e -> null)).isEqualTo("topic:outbox.Order");
  }
}
