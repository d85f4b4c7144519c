package dev.outboxkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TransportTest {

  private static OutboxMessage message(String aggregateId) {
    return OutboxMessage.of(
        OutboxEvent.builder("Order", aggregateId, "OrderPlaced").payload("{}").build(), 1);
  }

  @Test
  void default_sendBatch_sends_in_order_and_turns_exceptions_into_retries() {
    Transport transport =
        m -> {
          if (m.event().aggregateId().equals("bad")) {
            throw new IllegalStateException("broker said no\nsecond line");
          }
          return SendResult.delivered();
        };

    List<SendResult> results =
        transport.sendBatch(List.of(message("a"), message("bad"), message("c")));

    assertThat(results)
        .containsExactly(
            SendResult.delivered(),
            SendResult.retry("IllegalStateException: broker said no", null),
            SendResult.delivered());
  }

  @Test
  void failures_are_described_in_one_bounded_line() {
    String reason =
        Failures.describe(new RuntimeException(new IllegalArgumentException("x".repeat(5000))));

    assertThat(reason)
        .startsWith("IllegalArgumentException: xxx")
        .hasSize(Failures.MAX_REASON_LENGTH);
  }

  @Test
  void results_expose_status_reason_and_delay() {
    assertThat(SendResult.delivered().isDelivered()).isTrue();
    assertThat(SendResult.reject("too large").status()).isEqualTo(SendResult.Status.REJECT);
    assertThat(SendResult.unavailable("down").reason()).contains("down");
    assertThat(SendResult.retry("busy", java.time.Duration.ofSeconds(3)).retryAfter())
        .contains(java.time.Duration.ofSeconds(3));
  }
}
