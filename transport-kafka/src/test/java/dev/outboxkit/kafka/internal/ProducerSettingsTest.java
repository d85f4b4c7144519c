package dev.outboxkit.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProducerSettingsTest {
  private static final Duration DELIVERY = Duration.ofSeconds(20);
  private static final Duration BLOCK = Duration.ofSeconds(5);
  private static final Duration REQUEST = Duration.ofSeconds(10);

  @Test
  void of_fills_in_durability_and_no_linger_when_the_user_said_nothing() {
    Map<String, Object> config =
        ProducerSettings.of(Map.of("bootstrap.servers", "b:9092"), DELIVERY, BLOCK, REQUEST)
            .config();

    assertThat(config)
        .containsEntry("enable.idempotence", "true")
        .containsEntry("acks", "all")
        .containsEntry("linger.ms", "0")
        .containsEntry("delivery.timeout.ms", "20000");
  }

  @Test
  void of_keeps_the_users_linger() {
    Map<String, Object> config =
        ProducerSettings.of(
                Map.of("bootstrap.servers", "b:9092", "linger.ms", 20), DELIVERY, BLOCK, REQUEST)
            .config();

    assertThat(config).containsEntry("linger.ms", 20);
  }
}
