package dev.outboxkit.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.SendResult;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RefusedTopicsTest {
  private final AtomicLong now = new AtomicLong(1_000);
  private final RefusedTopics topics = new RefusedTopics(now::get);
  private final SendResult missing =
      SendResult.unavailable("topic does not exist", RefusedTopics.scope("orders"));

  @Test
  void refused_topic_is_answered_without_sending_until_its_next_check() {
    topics.refused("orders", missing);

    assertThat(topics.answerWithoutSending("orders")).isEqualTo(missing);
    assertThat(topics.answerWithoutSending("invoices")).isNull();
    advance(RefusedTopics.FIRST_CHECK);
    assertThat(topics.answerWithoutSending("orders")).as("check due").isNull();
  }

  @Test
  void interval_between_checks_doubles_while_the_topic_stays_refused_up_to_the_longest() {
    topics.refused("orders", missing);
    advance(RefusedTopics.FIRST_CHECK);
    topics.refused("orders", missing);

    advance(Duration.ofMillis(1_999));
    assertThat(topics.answerWithoutSending("orders")).isEqualTo(missing);
    advance(Duration.ofMillis(1));
    assertThat(topics.answerWithoutSending("orders")).isNull();
    assertThat(RefusedTopics.interval(3)).isEqualTo(Duration.ofSeconds(4));
    assertThat(RefusedTopics.interval(7)).isEqualTo(RefusedTopics.LONGEST_CHECK);
    assertThat(RefusedTopics.interval(1_000)).isEqualTo(RefusedTopics.LONGEST_CHECK);
  }

  @Test
  void acknowledged_record_forgets_the_refusal() {
    topics.refused("orders", missing);
    topics.refused("orders", missing);

    topics.accepted("orders");

    assertThat(topics.answerWithoutSending("orders")).isNull();
    topics.refused("orders", missing);
    advance(RefusedTopics.FIRST_CHECK);
    assertThat(topics.answerWithoutSending("orders"))
        .as("starts over at the first interval")
        .isNull();
  }

  private void advance(Duration d) {
    now.addAndGet(d.toNanos());
  }
}
