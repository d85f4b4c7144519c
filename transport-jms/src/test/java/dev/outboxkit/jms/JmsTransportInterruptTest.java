package dev.outboxkit.jms;

import static dev.outboxkit.jms.JmsTransportTest.QUIET;
import static dev.outboxkit.jms.JmsTransportTest.event;
import static dev.outboxkit.jms.JmsTransportTest.messages;
import static dev.outboxkit.jms.JmsTransportTest.unique;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.jms.QueueReader.Received;
import dev.outboxkit.testkit.InterruptedCall;
import dev.outboxkit.testkit.activemq.ActiveMqTestBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.apache.activemq.broker.Broker;
import org.apache.activemq.broker.BrokerFilter;
import org.apache.activemq.broker.BrokerPlugin;
import org.apache.activemq.broker.ConnectionContext;
import org.apache.activemq.broker.ProducerBrokerExchange;
import org.apache.activemq.command.Message;
import org.apache.activemq.command.TransactionId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The interrupt contract of {@link JmsTransport#sendBatch} against a real ActiveMQ broker: a relay
 * that gives up on a batch interrupts the sending thread and uses what comes back.
 */
class JmsTransportInterruptTest {
  static final int BATCH = 20;
  static final int STALL_AT = 6;

  private final StallPlugin plugin = new StallPlugin();
  private ActiveMqTestBroker broker;
  private JmsTransport transport;

  @AfterEach
  void stop() {
    plugin.release.countDown();
    if (transport != null) {
      transport.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void sendBatch_stops_at_an_interrupt_and_reports_what_was_confirmed() throws Exception {
    String type = unique("Interrupted");
    plugin.queue = "outbox." + type;
    broker = ActiveMqTestBroker.startInMemory("interrupt", plugin);
    // Producer flow control with a one-byte window: each send waits for the broker to take the
    // one before. The broker holds the sixth, so the seventh send blocks in the client, waiting
    // for room, as it does for a broker that is slow or out of memory.
    ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(broker.url());
    factory.setProducerWindowSize(1);
    AtomicInteger routed = new AtomicInteger(); // the router runs just before each send
    transport =
        JmsTransport.builder(factory)
            .name("interrupt")
            .sendTimeout(Duration.ofSeconds(30))
            .destinationRouter(
                e -> {
                  routed.incrementAndGet();
                  return null;
                })
            .build();
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < BATCH; i++) {
      events.add(event(type, "agg-" + i, i));
    }
    List<OutboxMessage> batch = messages(events);

    InterruptedCall<List<SendResult>> caller =
        InterruptedCall.start("relay-sender", () -> transport.sendBatch(batch));
    assertThat(plugin.stalled.await(30, TimeUnit.SECONDS)).as("broker holds a send").isTrue();
    awaitBlockedInFlowControl(caller.thread());
    int routedBeforeInterrupt = routed.get();

    caller.interrupt();
    List<SendResult> r = caller.await(Duration.ofSeconds(10)); // fails if sendBatch did not return

    assertThat(caller.returnedWithin()).as("interrupt to return").isLessThan(Duration.ofSeconds(2));
    assertThat(caller.interruptKept()).as("interrupt flag restored").isTrue();
    assertThat(routedBeforeInterrupt).isEqualTo(STALL_AT + 1);
    assertThat(routed).as("no send started after the interrupt").hasValue(STALL_AT + 1);
    // Nothing is confirmed before the commit, and the batch never got there.
    assertThat(r).hasSize(BATCH);
    assertThat(r)
        .containsOnly(
            SendResult.unavailable(
                "not confirmed: interrupted before the JMS transaction committed; it is rolled"
                    + " back"));

    // The broker got the six sent before the interrupt, none after, and never a commit; the
    // transaction is rolled back once the broker moves again.
    plugin.release.countDown();
    assertThat(plugin.rolledBack.await(30, TimeUnit.SECONDS)).as("rolled back").isTrue();
    assertThat(plugin.arrived).hasValue(STALL_AT);
    assertThat(plugin.commits).hasValue(0);
    assertThat(QueueReader.readAll(factory, plugin.queue, QUIET)).isEmpty();

    // The transport carries on: the same batch goes through whole, once.
    assertThat(transport.sendBatch(batch)).containsOnly(SendResult.delivered());
    List<Received> got = QueueReader.read(factory, plugin.queue, BATCH, QUIET);
    assertThat(got)
        .extracting(Received::eventId)
        .containsExactlyElementsOf(events.stream().map(OutboxEvent::id).toList());
  }

  /** Waits until the thread waits for producer-window space inside the ActiveMQ client. */
  private static void awaitBlockedInFlowControl(Thread t) throws InterruptedException {
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      for (StackTraceElement frame : t.getStackTrace()) {
        if (frame.getMethodName().equals("waitForSpace")) {
          return;
        }
      }
      assertThat(System.nanoTime() - giveUp).as("blocked in flow control").isNegative();
      Thread.sleep(1);
    }
  }

  /** Holds the {@value #STALL_AT}th message for the test's queue until released. */
  private static final class StallPlugin implements BrokerPlugin {
    final CountDownLatch stalled = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch rolledBack = new CountDownLatch(1);
    final AtomicInteger arrived = new AtomicInteger();
    final AtomicInteger commits = new AtomicInteger();
    volatile String queue;

    @Override
    public Broker installPlugin(Broker next) {
      return new BrokerFilter(next) {
        @Override
        public void send(ProducerBrokerExchange exchange, Message message) throws Exception {
          if (message.getDestination().getPhysicalName().equals(queue)
              && arrived.incrementAndGet() == STALL_AT) {
            stalled.countDown();
            release.await(30, TimeUnit.SECONDS);
          }
          super.send(exchange, message);
        }

        @Override
        public void commitTransaction(
            ConnectionContext context, TransactionId xid, boolean onePhase) throws Exception {
          commits.incrementAndGet();
          super.commitTransaction(context, xid, onePhase);
        }

        @Override
        public void rollbackTransaction(ConnectionContext context, TransactionId xid)
            throws Exception {
          super.rollbackTransaction(context, xid);
          rolledBack.countDown();
        }
      };
    }
  }
}
