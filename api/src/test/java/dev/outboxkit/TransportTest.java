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

  @Test
  void an_uncertain_result_is_a_retry_that_says_it_may_have_arrived() {
    SendResult uncertain = SendResult.uncertain("read timed out");

    assertThat(uncertain.status()).isEqualTo(SendResult.Status.RETRY);
    assertThat(uncertain.isUncertain()).isTrue();
    assertThat(uncertain.retryAfter()).isEmpty();
    assertThat(uncertain).isNotEqualTo(SendResult.retry("read timed out", null));
    assertThat(uncertain.toString()).isEqualTo("RETRY(uncertain, read timed out)");
    assertThat(SendResult.retry("busy", null).isUncertain()).isFalse();
  }

  @Test
  void by_default_a_transport_looks_nothing_up() {
    Transport t = m -> SendResult.delivered();
    OutboxMessage m =
        OutboxMessage.of(OutboxEvent.builder("Order", "1", "Placed").payload("{}").build(), 2, 1);

    assertThat(t.confirmsDelivery()).isFalse();
    assertThat(t.confirm(m)).isFalse();
    assertThat(m.uncertainSends()).isEqualTo(1);
    assertThat(m.toString()).endsWith(", attempt=2, uncertainSends=1]");
    assertThat(OutboxMessage.of(m.event(), 1).uncertainSends()).isZero();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> OutboxMessage.of(m.event(), 1, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("uncertainSends must be 0 or more, was -1");
  }
}
