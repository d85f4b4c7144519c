package dev.outboxkit.http.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.OutboxConfigurationException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The builders' range checks: the limits themselves, and messages that name option and value. */
class OptionsTest {

  @Test
  void between_accepts_both_bounds_and_refuses_beyond_them() {
    assertThat(Options.between("maxInFlight", 1, 1, 1024)).isEqualTo(1);
    assertThat(Options.between("maxInFlight", 1024, 1, 1024)).isEqualTo(1024);

    assertThatThrownBy(() -> Options.between("maxInFlight", 0, 1, 1024))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessage("maxInFlight must be between 1 and 1024, was 0");
    assertThatThrownBy(() -> Options.between("maxInFlightPerEndpoint", 257, 1, 256))
        .hasMessage("maxInFlightPerEndpoint must be between 1 and 256, was 257");
  }

  @Test
  void timeout_takes_1_ms_to_5_minutes() {
    assertThat(Options.timeout("requestTimeout", Duration.ofMillis(1)))
        .isEqualTo(Duration.ofMillis(1));
    assertThat(Options.timeout("requestTimeout", Duration.ofMinutes(5)))
        .isEqualTo(Duration.ofMinutes(5));

    assertThatThrownBy(() -> Options.timeout("connectTimeout", Duration.ofNanos(999_999)))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessage("connectTimeout must be between 1 ms and 5 minutes, was PT0.000999999S");
    assertThatThrownBy(() -> Options.timeout("requestTimeout", Duration.ofMinutes(5).plusMillis(1)))
        .hasMessage("requestTimeout must be between 1 ms and 5 minutes, was PT5M0.001S");
  }

  @Test
  void timeout_refuses_null_naming_the_option() {
    assertThatThrownBy(() -> Options.timeout("requestTimeout", null))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("requestTimeout");
  }

  @Test
  void at_least_one_second_refuses_anything_shorter() {
    assertThat(Options.atLeastOneSecond("maxRetryAfter", Duration.ofSeconds(1)))
        .isEqualTo(Duration.ofSeconds(1));

    assertThatThrownBy(() -> Options.atLeastOneSecond("tolerance", Duration.ofMillis(999)))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessage("tolerance must be at least 1 second, was PT0.999S");
  }

  @Test
  void positive_refuses_zero_and_negative_durations() {
    assertThat(Options.positive("circuitOpenDuration", Duration.ofNanos(1)))
        .isEqualTo(Duration.ofNanos(1));

    assertThatThrownBy(() -> Options.positive("circuitOpenDuration", Duration.ZERO))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessage("circuitOpenDuration must be positive, was PT0S");
    assertThatThrownBy(() -> Options.positive("circuitOpenDuration", Duration.ofSeconds(-1)))
        .hasMessage("circuitOpenDuration must be positive, was PT-1S");
  }
}
