package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ContextHeadersTest {

  @Test
  void isTraceparent_accepts_w3c_values_and_refuses_the_rest() {
    assertThat(
            ContextHeaders.isTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
        .isTrue();
    // A future version may append fields after a dash.
    assertThat(
            ContextHeaders.isTraceparent(
                "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra"))
        .isTrue();
    for (String bad :
        new String[] {
          "",
          "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", // 00 has no extras
          "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", // version ff is invalid
          "00-00000000000000000000000000000000-00f067aa0ba902b7-01", // zero trace id
          "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", // zero parent id
          "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", // upper case
          "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
          "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01x"
        }) {
      assertThat(ContextHeaders.isTraceparent(bad)).as(bad).isFalse();
    }
  }
}
