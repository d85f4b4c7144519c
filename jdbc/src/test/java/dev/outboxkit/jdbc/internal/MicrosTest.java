package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

class MicrosTest {

  @Test
  void converts_to_whole_microseconds_truncating_nanoseconds() {
    assertThat(Micros.of(Duration.ofSeconds(2, 3_999))).isEqualTo(2_000_003L);
    assertThat(Micros.of(Duration.ofDays(36_500))).isEqualTo(36_500L * 86_400 * 1_000_000);
    assertThat(Micros.of(Duration.ofNanos(-1_000))).isEqualTo(-1L);
  }

  @Test
  void a_duration_beyond_a_long_of_microseconds_fails_instead_of_wrapping() {
    for (Duration forever :
        new Duration[] {ChronoUnit.FOREVER.getDuration(), Duration.ofSeconds(Long.MAX_VALUE)}) {
      assertThatThrownBy(() -> Micros.of(forever))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("too long to count in microseconds");
    }
    Duration justOver = Duration.ofSeconds(Long.MAX_VALUE / 1_000_000L + 1);
    assertThatThrownBy(() -> Micros.of(justOver)).isInstanceOf(IllegalArgumentException.class);
  }
}
