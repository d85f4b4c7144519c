package dev.outboxkit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import java.util.List;
import org.junit.jupiter.api.Test;

class BatchTallyTest {
  private static OutboxMessage message(String id) {
    return OutboxMessage.of(
        OutboxEvent.builder("Order", id, "OrderPlaced").payload("{\"secret\":1}").build(), 1);
  }

  @Test
  void counts_each_status_and_names_the_first_rejected_event_without_its_payload() {
    List<OutboxMessage> batch =
        List.of(message("a"), message("b"), message("c"), message("d"), message("e"));
    BatchTally tally =
        BatchTally.of(
            batch,
            List.of(
                SendResult.delivered(),
                SendResult.reject("too large"),
                SendResult.retry("timeout", null),
                SendResult.reject("bad topic"),
                SendResult.unavailable("down")));

    assertThat(tally.delivered).isEqualTo(1);
    assertThat(tally.retry).isEqualTo(1);
    assertThat(tally.reject).isEqualTo(2);
    assertThat(tally.unavailable).isEqualTo(1);
    assertThat(tally.firstReject)
        .isEqualTo("event " + batch.get(1).event().id() + ": too large")
        .doesNotContain("secret");
  }

  @Test
  void a_batch_without_rejections_names_none() {
    BatchTally tally = BatchTally.of(List.of(message("a")), List.of(SendResult.delivered()));

    assertThat(tally.delivered).isEqualTo(1);
    assertThat(tally.firstReject).isNull();
  }

  @Test
  void the_summary_gives_the_size_the_counts_and_whole_milliseconds() {
    BatchTally tally =
        BatchTally.of(
            List.of(message("a"), message("b")),
            List.of(SendResult.delivered(), SendResult.unavailable("down")));

    assertThat(tally.summary(2, 12_999_999))
        .isEqualTo("batch of 2: 1 delivered, 0 retry, 0 reject, 1 unavailable in 12 ms");
  }
}
