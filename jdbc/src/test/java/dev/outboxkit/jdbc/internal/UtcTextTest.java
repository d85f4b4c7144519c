package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class UtcTextTest {
  private static final DateTimeFormatter PATTERN =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS");

  private static String expected(Instant i) {
    return PATTERN.format(LocalDateTime.ofInstant(i, ZoneOffset.UTC));
  }

  @Test
  void writes_what_the_pattern_writes_with_microseconds_truncated() {
    assertThat(UtcText.format(Instant.parse("2026-12-04T21:48:03.123456789Z")))
        .isEqualTo("2026-12-04 21:48:03.123456");
    assertThat(UtcText.format(Instant.parse("0001-01-01T00:00:00Z")))
        .isEqualTo("0001-01-01 00:00:00.000000");
    for (String edge :
        new String[] {
          "9999-12-31T23:59:59.999999999Z", "1970-01-01T00:00:00.000001Z", "+10000-01-01T00:00:00Z"
        }) {
      Instant i = Instant.parse(edge);
      assertThat(UtcText.format(i)).isEqualTo(expected(i));
    }
    SplittableRandom random = new SplittableRandom(7);
    long max = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
    for (int n = 0; n < 100_000; n++) {
      Instant i = Instant.ofEpochSecond(random.nextLong(-max, max), random.nextInt(1_000_000_000));
      assertThat(UtcText.format(i)).isEqualTo(expected(i));
    }
  }
}
