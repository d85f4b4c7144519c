package dev.outboxkit.jms;

import static dev.outboxkit.jms.JmsTransportTest.event;
import static dev.outboxkit.jms.JmsTransportTest.messages;
import static dev.outboxkit.jms.JmsTransportTest.unique;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.SendResult;
import dev.outboxkit.testkit.ThreadCensus;
import dev.outboxkit.testkit.ThreadCensus.CountingFactory;
import dev.outboxkit.testkit.activemq.ActiveMqTestBroker;
import java.util.ArrayList;
import java.util.List;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Where the transport's threads come from: with a {@code threadFactory} every thread it starts is
 * the factory's (a Java EE container's managed threads); without one they are its own named daemon
 * threads. None outlives {@code close()}. The provider's client and the in-JVM broker start threads
 * of their own (all named "ActiveMQ …"), which are theirs, not the transport's.
 */
class JmsThreadsTest {
  private static ActiveMqTestBroker broker;

  @BeforeAll
  static void startBroker() {
    broker = ActiveMqTestBroker.startInMemory("threads");
  }

  @AfterAll
  static void stopBroker() {
    broker.close();
  }

  private static List<OutboxEvent> events(int count) {
    String type = unique("Census");
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      events.add(event(type, "a" + (i % 3), i));
    }
    return events;
  }

  @Test
  void with_a_thread_factory_every_thread_the_transport_starts_is_the_factorys() {
    CountingFactory factory = new CountingFactory();
    ThreadCensus census = ThreadCensus.take("ActiveMQ");
    List<Thread> duringRun;
    try (JmsTransport transport =
        JmsTransport.builder(new ActiveMQConnectionFactory(broker.url()))
            .name("census")
            .threadFactory(factory)
            .build()) {
      assertThat(transport.sendBatch(messages(events(10))))
          .containsOnly(SendResult.delivered())
          .hasSize(10);
      duringRun = census.startedSince();
    }

    census.assertAllMadeBy(factory, duringRun, "JMS transport");
  }

  @Test
  void without_a_factory_the_transport_names_its_own_daemon_threads() {
    ThreadCensus census = ThreadCensus.take("ActiveMQ");
    List<Thread> duringRun;
    try (JmsTransport transport =
        JmsTransport.builder(new ActiveMQConnectionFactory(broker.url())).name("census").build()) {
      assertThat(transport.sendBatch(messages(events(3)))).containsOnly(SendResult.delivered());
      duringRun = census.startedSince();
    }

    census.assertOwnDaemonThreads(duringRun, "outboxkit-jms-census-", "JMS transport");
  }
}
