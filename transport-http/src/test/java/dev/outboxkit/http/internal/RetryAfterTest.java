package dev.outboxkit.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RetryAfterTest {
  static final Instant NOW = Instant.parse("2015-10-21T07:20:00Z");
  static final Duration MAX = Duration.ofHours(1);

  @Test
  void reads_delay_seconds() {
    assertThat(RetryAfter.parse("120", NOW, MAX)).isEqualTo(Duration.ofSeconds(120));
    assertThat(RetryAfter.parse(" 0 ", NOW, MAX)).isEqualTo(Duration.ZERO);
  }

  @Test
  void reads_an_http_date_relative_to_now() {
    assertThat(RetryAfter.parse("Wed, 21 Oct 2015 07:28:00 GMT", NOW, MAX))
        .isEqualTo(Duration.ofMinutes(8));
  }

  @Test
  void treats_a_date_in_the_past_as_zero() {
    assertThat(RetryAfter.parse("Wed, 21 Oct 2015 07:00:00 GMT", NOW, MAX))
        .isEqualTo(Duration.ZERO);
  }

  @Test
  void clamps_to_the_maximum() {
    assertThat(RetryAfter.parse("86400", NOW, MAX)).isEqualTo(MAX);
    assertThat(RetryAfter.parse("99999999999999999999999", NOW, MAX)).isEqualTo(MAX);
    assertThat(RetryAfter.parse("Thu, 22 Oct 2015 07:28:00 GMT", NOW, MAX)).isEqualTo(MAX);
  }

  @Test
  void ignores_absent_or_unparseable_values() {
    assertThat(RetryAfter.parse(null, NOW, MAX)).isNull();
    assertThat(RetryAfter.parse("", NOW, MAX)).isNull();
    assertThat(RetryAfter.parse("-5", NOW, MAX)).isNull();
    assertThat(RetryAfter.parse("soon", NOW, MAX)).isNull();
  }
}
