package dev.outboxkit.jms;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.jdbc.OutboxWriter;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.TestDatabases;
import dev.outboxkit.testkit.activemq.ActiveMqTestBroker;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import java.sql.Connection;
import java.util.Map;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.junit.jupiter.api.Test;

/**
 * W3C trace context travels end to end: captured at append time by the writer's context hook (or
 * set by the caller on the event), published by the relay, and read by a plain JMS consumer on a
 * real embedded ActiveMQ as string properties named exactly {@code traceparent} and {@code
 * tracestate} (both are legal JMS property names, so the header-name mapping leaves them as they
 * are).
 */
class JmsTraceContextTest {
  static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  static final String TRACESTATE = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7";
  static final String OWN_TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00";

  @Test
  void trace_context_arrives_unchanged_as_message_properties_through_the_relay() throws Exception {
    String type = JmsTransportTest.unique("Traced");
    OutboxWriter writer =
        OutboxWriter.builder()
            .contextHeaders(() -> Map.of("traceparent", TRACEPARENT, "tracestate", TRACESTATE))
            .build();

    try (ActiveMqTestBroker broker = ActiveMqTestBroker.startInMemory("trace");
        TestDatabase db = TestDatabases.create(Flavor.H2, "JmsTrace");
        JmsTransport transport =
            JmsTransport.builder(new ActiveMQConnectionFactory(broker.url()))
                .name("trace")
                .build()) {
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
      try (OutboxRelay relay = OutboxRelay.builder(db.dataSource(), transport).build()) {
        assertThat(relay.runOnce()).isEqualTo(2);
      }

      try (jakarta.jms.Connection c =
          new ActiveMQConnectionFactory(broker.url()).createConnection()) {
        c.start();
        Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer =
            s.createConsumer(s.createQueue(JmsTransport.DEFAULT_QUEUE_PREFIX + type));
        Message first = consumer.receive(10_000);
        Message second = consumer.receive(10_000);
        assertThat(second).as("both messages on the queue").isNotNull();

        assertThat(first.getStringProperty("traceparent")).isEqualTo(TRACEPARENT);
        assertThat(first.getStringProperty("tracestate")).isEqualTo(TRACESTATE);
        assertThat(JmsEvents.header(first, "traceparent")).hasValue(TRACEPARENT);
        assertThat(second.getStringProperty("traceparent")).isEqualTo(OWN_TRACEPARENT);
        assertThat(second.getStringProperty("tracestate")).isEqualTo(TRACESTATE);
      }
    }
  }
}
