package dev.outboxkit.debezium;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.debezium.transforms.outbox.EventRouter;
import java.util.Map;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/**
 * Why routing by destination needs this module: Debezium 3.6.1's stock Outbox Event Router, told to
 * route by the destination column (the advice this README once gave), fails on every row without a
 * destination, which stops a Connect task under the default error tolerance.
 */
class StockEventRouterTest {

  @Test
  void stock_router_routing_by_destination_fails_on_a_row_without_one() {
    try (EventRouter<SourceRecord> router = new EventRouter<>()) {
      router.configure(
          Map.of(
              "table.field.event.id", "id",
              "table.field.event.key", "aggregate_id",
              "table.field.event.payload", "payload",
              "route.by.field", "destination"));

      SourceRecord routed =
          router.apply(
              OutboxEventRouterTest.change(
                  "c", OutboxEventRouterTest.row(r -> r.put("destination", "billing.invoices"))));
      assertThat(routed.topic()).isEqualTo("outbox.event.billing.invoices");

      assertThatThrownBy(
              () ->
                  router.apply(
                      OutboxEventRouterTest.change("c", OutboxEventRouterTest.row(r -> {}))))
          .isInstanceOf(NullPointerException.class);
    }
  }
}
