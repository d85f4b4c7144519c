package dev.outboxkit.console;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How failure texts fold into groups. */
class ReasonsTest {
  @Test
  void urlsIdsTimesAndCountsFoldButStatusCodesStay() {
    assertThat(Reasons.group("HTTP 422 from https://crm.example/orders/o-3: over credit limit"))
        .isEqualTo("HTTP 422 from <url>: over credit limit");
    assertThat(Reasons.group("gave up after 10 attempts: HTTP 503 from https://crm/x?id=4711."))
        .isEqualTo("gave up after # attempts: HTTP 503 from <url>.");
    assertThat(Reasons.group("event 5f0e9a1c-1b2d-4e3f-8a9b-0c1d2e3f4a5b refused, status: 409"))
        .isEqualTo("event <id> refused, status: 409");
    assertThat(Reasons.group("destination down since 2026-12-04T10:00:00.123Z: code 502"))
        .isEqualTo("destination down since <time>: code 502");
    assertThat(Reasons.group("broker ack timeout after 30000 ms on partition 7 (0xdeadbeef42cafe)"))
        .isEqualTo("broker ack timeout after # ms on partition # (<id>)");
  }

  @Test
  void emptyAndOverlongTextsHaveAGroupToo() {
    assertThat(Reasons.group(null)).isEqualTo("(no reason recorded)");
    assertThat(Reasons.group("  ")).isEqualTo("(no reason recorded)");
    assertThat(Reasons.group("x".repeat(5000))).hasSize(Reasons.MAX_LENGTH + 1).endsWith("…");
  }
}
