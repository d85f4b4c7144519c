package dev.outboxkit.faults;

import dev.outboxkit.kafka.KafkaTransport;
import java.time.Duration;
import java.util.Map;

/**
 * Kafka transports for the scenarios, with timeouts nested the way the transport's documentation
 * asks: the producer gives up on a record ({@code delivery.timeout.ms}) before the transport's
 * batch deadline, and that deadline comes 500 ms before the relay's {@code sendTimeout}, so the
 * relay never abandons a batch Kafka may still acknowledge.
 */
final class KafkaTransports {
  private KafkaTransports() {}

  static KafkaTransport create(String bootstrapServers, String name, Duration relaySendTimeout) {
    long deadline = relaySendTimeout.toMillis() - 500;
    long delivery = deadline - 300;
    return KafkaTransport.builder(
            Map.of(
                "bootstrap.servers", bootstrapServers,
                "delivery.timeout.ms", Long.toString(delivery),
                "request.timeout.ms", Long.toString(delivery - 200),
                "max.block.ms", Long.toString(delivery - 200),
                "reconnect.backoff.max.ms", "500"))
        .name("kafka-" + name)
        .sendTimeout(Duration.ofMillis(deadline))
        .closeTimeout(Duration.ofSeconds(2))
        .build();
  }
}
