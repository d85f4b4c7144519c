package dev.outboxkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FailuresTest {

  @Test
  void describe_keeps_the_first_line_and_shows_a_carriage_return_as_an_escape() {
    String reason =
        Failures.describe(new IllegalStateException("refused\r[main] INFO forged\nsecond line"));

    assertThat(reason).isEqualTo("IllegalStateException: refused\\r[main] INFO forged");
  }

  @Test
  void truncate_never_splits_a_character_outside_the_bmp() {
    String rocket = "\uD83D\uDE80";
    String text = "x".repeat(Failures.MAX_REASON_LENGTH - 2) + rocket + "tail";

    String cut = Failures.truncate(text);

    assertThat(cut).isEqualTo("x".repeat(Failures.MAX_REASON_LENGTH - 2) + "\u2026");
    assertThat(cut.length()).isLessThanOrEqualTo(Failures.MAX_REASON_LENGTH);
  }
}
