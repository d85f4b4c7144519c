package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.RelayListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScheduledRetentionTest {

  @Test
  void interval_is_a_tenth_of_the_shortest_retention_between_one_second_and_five_minutes() {
    assertThat(ScheduledRetention.interval(Duration.ofSeconds(30)))
        .isEqualTo(Duration.ofSeconds(3));
    assertThat(ScheduledRetention.interval(Duration.ofMillis(500)))
        .isEqualTo(Duration.ofSeconds(1));
    assertThat(ScheduledRetention.interval(Duration.ofDays(7))).isEqualTo(Duration.ofMinutes(5));
  }

  @Test
  void a_failed_pass_is_reported_and_never_thrown() {
    List<Long> reported = new ArrayList<>();
    RelayListener listener =
        new RelayListener() {
          @Override
          public void purged(long events, long inboxRows, Duration took) {
            reported.add(events);
            reported.add(inboxRows);
          }
        };
    FailingDataSource down = new FailingDataSource();
    down.failNext(Integer.MAX_VALUE, "08001");
    RetentionSweep sweep = new RetentionSweep(down, null, null, c -> null, 1000, 0);
    ScheduledRetention retention =
        new ScheduledRetention(
            "r",
            sweep,
            Duration.ofHours(1),
            null,
            () -> {
              throw new AssertionError("the inbox is not purged after the table's pass failed");
            },
            Duration.ofSeconds(1),
            listener,
            () -> true,
            () -> 0.5);

    retention.pass();

    assertThat(reported).containsExactly(0L, 0L);
  }
}
