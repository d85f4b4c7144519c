package dev.outboxkit.jms;

import static dev.outboxkit.jdbc.TracedEvents.OWN_TRACEPARENT;
import static dev.outboxkit.jdbc.TracedEvents.TRACEPARENT;
import static dev.outboxkit.jdbc.TracedEvents.TRACESTATE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.TracedEvents;
import dev.outboxkit.testkit.activemq.ActiveMqTestBroker;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
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
  @Test
  void trace_context_arrives_unchanged_as_message_properties_through_the_relay() throws Exception {
    String type = JmsTransportTest.unique("Traced");

    try (ActiveMqTestBroker broker = ActiveMqTestBroker.startInMemory("trace");
        JmsTransport transport =
            JmsTransport.builder(new ActiveMQConnectionFactory(broker.url()))
                .name("trace")
                .build()) {
      TracedEvents.appendAndRelay(transport, type, OutboxRelay.DEFAULT_SEND_TIMEOUT);

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
