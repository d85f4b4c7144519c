package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffTest {

  @Test
  void cap_doubles_per_failed_attempt_up_to_the_max() {
    Backoff b = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60), () -> 0.5);

    assertThat(b.cap(1)).isEqualTo(Duration.ofSeconds(1));
    assertThat(b.cap(2)).isEqualTo(Duration.ofSeconds(2));
    assertThat(b.cap(6)).isEqualTo(Duration.ofSeconds(32));
    assertThat(b.cap(7)).isEqualTo(Duration.ofSeconds(60));
    assertThat(b.cap(10_000)).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void full_jitter_spreads_delays_over_zero_to_the_cap() {
    Random random = new Random(1);
    Backoff b = new Backoff(Duration.ofMillis(100), Duration.ofMinutes(10), random::nextDouble);
    Duration min = Duration.ofDays(1);
    Duration max = Duration.ZERO;
    for (int i = 0; i < 10_000; i++) {
      Duration d = b.delay(4); // cap 800 ms
      assertThat(d).isBetween(Duration.ZERO, Duration.ofMillis(800));
      min = d.compareTo(min) < 0 ? d : min;
      max = d.compareTo(max) > 0 ? d : max;
    }
    assertThat(min).isLessThan(Duration.ofMillis(10));
    assertThat(max).isGreaterThan(Duration.ofMillis(790));
  }

  @Test
  void the_outage_breaker_pauses_longer_each_trip_and_resets_on_recovery() {
    Clock[] now = {Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC)};
    Clock clock =
        new Clock() {
          @Override
          public Instant instant() {
            return now[0].instant();
          }

          @Override
          public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(java.time.ZoneId zone) {
            return this;
          }
        };
    OutageBreaker breaker =
        new OutageBreaker(
            clock, new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30), () -> 1.0));

    assertThat(breaker.probing()).isFalse();
    assertThat(breaker.trip()).isEqualTo(Duration.ofSeconds(1));
    assertThat(breaker.trip()).isEqualTo(Duration.ofSeconds(2));
    assertThat(breaker.probing()).isTrue();
    assertThat(breaker.pauseLeft()).isEqualTo(Duration.ofSeconds(2));
    now[0] = Clock.offset(now[0], Duration.ofSeconds(5));
    assertThat(breaker.pauseLeft()).isZero();
    assertThat(breaker.recovered()).isEqualTo(Duration.ofSeconds(5));
    assertThat(breaker.probing()).isFalse();
    assertThat(breaker.recovered()).isNull();
  }

  @Test
  void a_near_zero_jitter_draw_still_pauses_a_tenth_of_the_cap() {
    OutageBreaker breaker =
        new OutageBreaker(
            Clock.systemUTC(),
            new Backoff(Duration.ofSeconds(10), Duration.ofSeconds(30), () -> 0.0));
    assertThat(breaker.trip()).isEqualTo(Duration.ofSeconds(1));
  }
}
