package dev.outboxkit.kafka;

import static dev.outboxkit.jdbc.TracedEvents.OWN_TRACEPARENT;
import static dev.outboxkit.jdbc.TracedEvents.TRACEPARENT;
import static dev.outboxkit.jdbc.TracedEvents.TRACESTATE;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.TracedEvents;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import dev.outboxkit.testkit.kafka.TopicReader;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

/**
 * W3C trace context travels end to end: captured at append time (by the writer's context hook, or
 * set by the caller on the event), stored with the event, and published by the relay as Kafka
 * record headers with the very same bytes.
 */
class KafkaTraceContextTest {
  @Test
  void trace_context_arrives_unchanged_as_record_headers_through_the_relay() throws Exception {
    KafkaTestBroker broker = KafkaTestBroker.shared();
    String type = KafkaTransportTest.unique("Traced");
    String topic = KafkaTransportTest.typeTopic(broker, type, 1);
    Map<String, Object> config = new HashMap<>();
    config.put("bootstrap.servers", broker.bootstrapServers());

    try (KafkaTransport transport = KafkaTransport.builder(config).build()) {
      TracedEvents.appendAndRelay(transport, type, Duration.ofSeconds(20));
    }

    List<ConsumerRecord<String, byte[]>> records =
        TopicReader.readAll(broker.bootstrapServers(), topic);
    assertThat(records).hasSize(2);
    assertThat(header(records.get(0), "traceparent")).isEqualTo(TRACEPARENT);
    assertThat(header(records.get(0), "tracestate")).isEqualTo(TRACESTATE);
    assertThat(header(records.get(1), "traceparent")).isEqualTo(OWN_TRACEPARENT);
    assertThat(header(records.get(1), "tracestate")).isEqualTo(TRACESTATE);
    assertThat(records.get(1).headers().headers("traceparent")).hasSize(1);
  }

  private static String header(ConsumerRecord<String, byte[]> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), UTF_8);
  }
}
