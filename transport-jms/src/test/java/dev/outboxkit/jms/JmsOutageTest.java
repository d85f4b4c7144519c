package dev.outboxkit.jms;

import static dev.outboxkit.jms.JmsTransportTest.QUIET;
import static dev.outboxkit.jms.JmsTransportTest.event;
import static dev.outboxkit.jms.JmsTransportTest.messages;
import static dev.outboxkit.jms.JmsTransportTest.statuses;
import static dev.outboxkit.jms.JmsTransportTest.unique;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.SendResult.Status;
import dev.outboxkit.testkit.activemq.ActiveMqTestBroker;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A broker that goes away and comes back: its own persistent instance, restarted in place. */
class JmsOutageTest {
  private static ActiveMqTestBroker broker;
  private JmsTransport transport;

  @BeforeAll
  static void startBroker() {
    broker = ActiveMqTestBroker.startPersistent("outage");
  }

  @AfterAll
  static void stopBroker() {
    broker.close();
  }

  @AfterEach
  void cleanUp() {
    broker.start(); // a failed test must not leave it down for the next one
    if (transport != null) {
      transport.close();
    }
  }

  private JmsTransport transport(ConnectionFactory factory) {
    transport =
        JmsTransport.builder(factory).name("outage").sendTimeout(Duration.ofSeconds(5)).build();
    return transport;
  }

  private static List<OutboxEvent> events(String type, int n) {
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      events.add(event(type, "a" + (i % 7), i));
    }
    return events;
  }

  @Test
  void sendBatch_reports_unavailable_while_the_broker_is_down_and_reconnects_after_restart()
      throws Exception {
    String type = unique("Down");
    transport(new ActiveMQConnectionFactory(broker.url()));
    assertThat(transport.send(OutboxMessage.of(event(type, "warm", 0), 1)))
        .isEqualTo(SendResult.delivered());
    List<OutboxEvent> events = events(type, 30);

    broker.stop();
    List<SendResult> whileDown = transport.sendBatch(messages(events));
    List<SendResult> stillDown = transport.sendBatch(messages(events));

    assertThat(statuses(whileDown)).containsOnly(Status.UNAVAILABLE);
    assertThat(statuses(stillDown)).containsOnly(Status.UNAVAILABLE);
    assertThat(stillDown.get(0).reason().orElseThrow())
        .startsWith("cannot connect to the JMS provider");

    broker.start();
    List<SendResult> afterRestart = transport.sendBatch(messages(events));

    assertThat(statuses(afterRestart)).containsOnly(Status.DELIVERED);
    List<UUID> ids = ids(type);
    assertThat(ids).hasSize(31);
    assertThat(ids.subList(1, 31))
        .containsExactlyElementsOf(events.stream().map(OutboxEvent::id).toList());
  }

  @Test
  void a_broker_stopped_in_the_middle_of_a_batch_leaves_none_of_it_visible() throws Exception {
    String type = unique("Mid");
    List<OutboxEvent> events = events(type, 100);
    AtomicBoolean stopped = new AtomicBoolean();
    // The router runs between the sends, in batch order: stopping the broker from it cuts the
    // transaction in the middle, with half the messages already sent in it.
    transport =
        JmsTransport.builder(new ActiveMQConnectionFactory(broker.url()))
            .sendTimeout(Duration.ofSeconds(5))
            .destinationRouter(
                e -> {
                  if (e == events.get(50) && stopped.compareAndSet(false, true)) {
                    broker.stop();
                  }
                  return null;
                })
            .build();

    List<SendResult> results = transport.sendBatch(messages(events));

    assertThat(stopped).isTrue();
    assertThat(statuses(results)).containsOnly(Status.UNAVAILABLE);
    broker.start();
    assertThat(ids(type)).as("nothing of the interrupted transaction").isEmpty();

    List<SendResult> again = transport.sendBatch(messages(events));

    assertThat(statuses(again)).containsOnly(Status.DELIVERED);
    assertThat(ids(type)).containsExactlyElementsOf(events.stream().map(OutboxEvent::id).toList());
  }

  @Test
  void a_broker_restarted_between_sends_costs_no_unavailable_batch() throws Exception {
    // The exception listener (or the failed first use of the stale connection) makes the
    // transport connect again within the same call.
    assertDeliversRightAfterARestart(
        unique("Restart"), new ActiveMQConnectionFactory(broker.url()));
  }

  @Test
  void a_connection_cut_while_idle_is_replaced_within_the_next_send() throws Exception {
    String type = unique("Cut");
    connectAndDeliverOne(type, new ActiveMQConnectionFactory(broker.url()));

    broker.dropClientConnections();
    List<OutboxEvent> events = events(type, 10);
    List<SendResult> results = transport.sendBatch(messages(events));

    assertThat(statuses(results)).containsOnly(Status.DELIVERED);
    // The broker may still process what was already on the wire, commit included, after the
    // cut: the transport cannot know and sends again, so duplicates are possible, loss is not.
    assertThat(ids(type)).containsAll(events.stream().map(OutboxEvent::id).toList());
  }

  @Test
  void a_connection_attempt_that_hangs_is_cut_off_at_the_send_timeout_and_used_once_it_succeeds()
      throws Exception {
    String type = unique("Hang");
    CountDownLatch release = new CountDownLatch(1);
    ConnectionFactory hanging =
        new HangingFactory(new ActiveMQConnectionFactory(broker.url()), release);
    // 2 s: the timeout bounds the hang, and also the second call's connect, sends and commit.
    transport =
        JmsTransport.builder(hanging).sendTimeout(Duration.ofSeconds(2)).name("hang").build();
    List<OutboxEvent> events = events(type, 5);

    List<SendResult> hung = transport.sendBatch(messages(events));

    assertThat(statuses(hung)).containsOnly(Status.UNAVAILABLE);
    assertThat(hung.get(0).reason().orElseThrow())
        .isEqualTo("could not connect to the JMS provider within the sendTimeout of PT2S");

    release.countDown();
    List<SendResult> later = transport.sendBatch(messages(events));

    assertThat(statuses(later)).containsOnly(Status.DELIVERED);
    assertThat(ids(type)).hasSize(5);
  }

  @Test
  void without_an_exception_listener_a_restarted_broker_is_found_and_used_within_the_next_send()
      throws Exception {
    // As in Java EE and Jakarta EE web and EJB containers, where setExceptionListener is forbidden.
    assertDeliversRightAfterARestart(
        unique("NoListener"), new NoListenerFactory(new ActiveMQConnectionFactory(broker.url())));
  }

  /** Makes the test's transport on the factory and sends it one event, which must arrive. */
  private void connectAndDeliverOne(String type, ConnectionFactory factory) {
    transport(factory);
    assertThat(transport.send(OutboxMessage.of(event(type, "a", 0), 1)))
        .isEqualTo(SendResult.delivered());
  }

  /**
   * Connects, restarts the broker, and sends ten events: the first call after the restart delivers
   * them all, and the queue holds all eleven.
   */
  private void assertDeliversRightAfterARestart(String type, ConnectionFactory factory)
      throws Exception {
    connectAndDeliverOne(type, factory);

    broker.stop();
    broker.start();
    List<SendResult> results = transport.sendBatch(messages(events(type, 10)));

    assertThat(statuses(results)).containsOnly(Status.DELIVERED);
    assertThat(ids(type)).hasSize(11);
  }

  private List<UUID> ids(String type) throws Exception {
    return QueueReader.eventIds(
        new ActiveMQConnectionFactory(broker.url()), "outbox." + type, QUIET);
  }

  /**
   * A factory whose connections refuse exception listeners, as in Java EE and Jakarta EE
   * containers.
   */
  private static final class NoListenerFactory extends ForwardingFactory {
    NoListenerFactory(ConnectionFactory delegate) {
      super(delegate);
    }

    @Override
    public Connection createConnection() throws JMSException {
      Connection real = delegate.createConnection();
      return (Connection)
          Proxy.newProxyInstance(
              Connection.class.getClassLoader(),
              new Class<?>[] {Connection.class},
              (proxy, method, args) -> {
                if (method.getName().equals("setExceptionListener")) {
                  throw new jakarta.jms.IllegalStateException("not allowed in this container");
                }
                try {
                  return method.invoke(real, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              });
    }
  }

  /** Forwards connection creation; the JMS 2 context methods are not needed here. */
  private abstract static class ForwardingFactory implements ConnectionFactory {
    final ConnectionFactory delegate;

    ForwardingFactory(ConnectionFactory delegate) {
      this.delegate = delegate;
    }

    @Override
    public Connection createConnection(String user, String password) throws JMSException {
      return createConnection();
    }

    @Override
    public JMSContext createContext() {
      throw new UnsupportedOperationException();
    }

    @Override
    public JMSContext createContext(String user, String password) {
      throw new UnsupportedOperationException();
    }

    @Override
    public JMSContext createContext(String user, String password, int sessionMode) {
      throw new UnsupportedOperationException();
    }

    @Override
    public JMSContext createContext(int sessionMode) {
      throw new UnsupportedOperationException();
    }
  }

  /** A factory whose first connection attempt blocks until released, like a failover URL. */
  private static final class HangingFactory extends ForwardingFactory {
    private final CountDownLatch release;

    HangingFactory(ConnectionFactory delegate, CountDownLatch release) {
      super(delegate);
      this.release = release;
    }

    @Override
    public Connection createConnection() throws JMSException {
      try {
        if (!release.await(30, TimeUnit.SECONDS)) {
          throw new JMSException("never released");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new JMSException("interrupted");
      }
      return delegate.createConnection();
    }
  }
}
