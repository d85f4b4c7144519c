package dev.outboxkit.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.jdbc.OutboxWriter;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.TestDatabases;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import dev.outboxkit.testkit.kafka.TopicReader;
import java.sql.Connection;
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
  static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  static final String TRACESTATE = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7";
  static final String OWN_TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00";

  @Test
  void trace_context_arrives_unchanged_as_record_headers_through_the_relay() throws Exception {
    KafkaTestBroker broker = KafkaTestBroker.shared();
    String type = KafkaTransportTest.unique("Traced");
    String topic = "outbox.event." + type;
    broker.createTopic(topic, 1);
    OutboxWriter writer =
        OutboxWriter.builder()
            .contextHeaders(() -> Map.of("traceparent", TRACEPARENT, "tracestate", TRACESTATE))
            .build();
    Map<String, Object> config = new HashMap<>();
    config.put("bootstrap.servers", broker.bootstrapServers());

    try (TestDatabase db = TestDatabases.create(Flavor.H2, "KafkaTrace");
        KafkaTransport transport = KafkaTransport.builder(config).build()) {
      try (Connection c = db.connect()) {
        OutboxSchema.create(c);
        c.setAutoCommit(false);
        writer.append(c, OutboxEvent.builder(type, "a-1", "FromHook").payload("{}").build());
        writer.append(
            c,
            OutboxEvent.builder(type, "a-2", "FromCaller")
                .payload("{}")
                .header("traceparent", OWN_TRACEPARENT)
                .build());
        c.commit();
      }
      try (OutboxRelay relay =
          OutboxRelay.builder(db.dataSource(), transport)
              .sendTimeout(Duration.ofSeconds(20))
              .build()) {
        assertThat(relay.runOnce()).isEqualTo(2);
      }
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
