package dev.outboxkit.jms;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.Transport;
import dev.outboxkit.testing.TransportContract;
import dev.outboxkit.testkit.Ports;
import dev.outboxkit.testkit.activemq.ActiveMqTestBroker;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The transport contract kit against an embedded ActiveMQ broker. */
class JmsTransportContractTest extends TransportContract {
  private static final String TYPE = JmsTransportTest.unique("Contract");
  private static final List<UUID> consumed = new ArrayList<>();
  private static ActiveMqTestBroker broker;

  @BeforeAll
  static void startBroker() {
    broker = ActiveMqTestBroker.startInMemory("contract");
  }

  @AfterAll
  static void stopBroker() {
    broker.close();
  }

  @Override
  protected Transport newTransport() {
    return JmsTransport.builder(new ActiveMQConnectionFactory(broker.url()))
        .name("contract")
        .build();
  }

  @Override
  protected Transport newUnreachableTransport() throws IOException {
    int port = Ports.unused();
    return JmsTransport.builder(new ActiveMQConnectionFactory("tcp://127.0.0.1:" + port))
        .name("unreachable")
        .sendTimeout(Duration.ofSeconds(3))
        .build();
  }

  /** Consuming takes messages off the queue: what was read before is kept. */
  @Override
  protected List<UUID> receivedIds() throws Exception {
    synchronized (consumed) {
      for (QueueReader.Received r :
          QueueReader.poll(
              new ActiveMQConnectionFactory(broker.url()),
              JmsTransport.DEFAULT_QUEUE_PREFIX + TYPE,
              Duration.ofMillis(50))) {
        consumed.add(r.eventId());
      }
      return new ArrayList<>(consumed);
    }
  }

  @Override
  protected OutboxEvent event(String aggregateId, int n) {
    return JmsTransportTest.event(TYPE, aggregateId, n);
  }

  /** A user header that would map to the transport's own event-id property: refused for good. */
  @Override
  protected OutboxEvent refusedEvent(String aggregateId) {
    return OutboxEvent.builder(TYPE, aggregateId, "T")
        .payload("{}")
        .header("outbox-event-id", "spoofed")
        .build();
  }
}
