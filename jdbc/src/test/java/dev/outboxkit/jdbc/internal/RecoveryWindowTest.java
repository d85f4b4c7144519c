package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RecoveryWindowTest {
  private static final long SECOND = 1_000_000_000L;
  private final RecoveryWindow window = new RecoveryWindow(Duration.ofSeconds(60));

  @Test
  void the_first_recovery_reads_every_expired_lease() {
    assertThat(window.micros(7 * SECOND)).isZero();
  }

  @Test
  void a_later_one_reads_back_to_the_last_start_and_one_lease_more() {
    window.recovered(100 * SECOND, true);

    assertThat(window.micros(105 * SECOND)).isEqualTo(65_000_000L);
    window.recovered(105 * SECOND, false);
    assertThat(window.micros(110 * SECOND)).isEqualTo(65_000_000L);
  }

  @Test
  void a_recovery_that_failed_widens_the_next_window() {
    window.recovered(100 * SECOND, true);
    // The one at 105 s threw: nothing recorded.

    assertThat(window.micros(110 * SECOND)).isEqualTo(70_000_000L);
  }

  @Test
  void every_expired_lease_is_read_again_once_a_lease_duration() {
    window.recovered(100 * SECOND, true);
    window.recovered(155 * SECOND, false);

    assertThat(window.micros(159 * SECOND)).isEqualTo(64_000_000L);
    assertThat(window.micros(160 * SECOND)).isZero();
    window.recovered(160 * SECOND, true);
    assertThat(window.micros(165 * SECOND)).isEqualTo(65_000_000L);
  }

  @Test
  void a_dialect_without_the_window_reads_every_lease_each_time_and_that_counts_as_full() {
    window.recovered(100 * SECOND, true);
    window.micros(105 * SECOND); // asked for a window, the dialect read every lease
    window.recovered(105 * SECOND, true);

    assertThat(window.micros(170 * SECOND)).isZero();
    assertThat(window.micros(164 * SECOND)).isEqualTo(119_000_000L);
  }
}
