package dev.outboxkit.kafka;

import static dev.outboxkit.kafka.KafkaTransportTest.event;
import static dev.outboxkit.kafka.KafkaTransportTest.eventIds;
import static dev.outboxkit.kafka.KafkaTransportTest.unique;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.testkit.InterruptedCall;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import dev.outboxkit.testkit.kafka.TopicReader;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The interrupt contract of {@link KafkaTransport#sendBatch} against the real in-JVM broker: a
 * relay that gives up on a batch interrupts the sending thread and uses what comes back.
 */
class KafkaTransportInterruptTest {
  static final int BATCH = 20;
  static final int ACKED = 5;

  private static KafkaTestBroker broker;
  private final CountDownLatch neverReleased = new CountDownLatch(1);
  private KafkaProducer<String, byte[]> producer;
  private KafkaTransport transport;

  @BeforeAll
  static void startBroker() {
    broker = KafkaTestBroker.shared();
  }

  @AfterEach
  void close() {
    neverReleased.countDown();
    if (transport != null) {
      transport.close();
    }
    if (producer != null) {
      producer.close(Duration.ofSeconds(5));
    }
  }

  @Test
  void sendBatch_stops_at_an_interrupt_and_reports_what_was_confirmed() throws Exception {
    String type = unique("Interrupted");
    String topic = KafkaTransportTest.typeTopic(broker, type, 1);
    Map<String, Object> config = config();
    config.put("enable.idempotence", "true");
    config.put("acks", "all");
    producer = new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
    // The real producer, observed: counts acknowledgements once the transport's callback ran.
    CountDownLatch acked = new CountDownLatch(ACKED);
    Producer<String, byte[]> observed = observeAcks(producer, acked);

    List<OutboxEvent> events = events(type);
    StallingRouter router = new StallingRouter(topic);
    transport =
        KafkaTransport.builder(observed)
            .sendTimeout(Duration.ofSeconds(30))
            .topicRouter(router)
            .build();
    List<OutboxMessage> batch = events.stream().map(KafkaTransportTest::message).toList();

    InterruptedCall<List<SendResult>> caller = sendUntilStalled(batch, router);
    assertThat(acked.await(30, TimeUnit.SECONDS)).as("first five acknowledged").isTrue();
    List<SendResult> r = interruptAndAwait(caller);

    assertThat(r).hasSize(BATCH);
    assertThat(r.subList(0, ACKED)).containsOnly(SendResult.delivered());
    assertThat(r.subList(ACKED, BATCH))
        .containsOnly(SendResult.unavailable("not confirmed: interrupted before it was sent"));
    assertThat(router.routed).as("no event routed after the interrupt").hasValue(ACKED + 1);

    // Nothing was handed to the producer after the interrupt: flush what it holds, then read.
    producer.flush();
    List<UUID> written = eventIds(TopicReader.readAll(broker.bootstrapServers(), topic));
    assertThat(written)
        .containsExactlyElementsOf(events.subList(0, ACKED).stream().map(OutboxEvent::id).toList());
  }

  @Test
  void sendBatch_in_a_transaction_confirms_nothing_at_an_interrupt_and_aborts() throws Exception {
    String type = unique("InterruptedTx");
    String topic = KafkaTransportTest.typeTopic(broker, type, 1);
    Map<String, Object> config = config();
    config.put("transactional.id", unique("interrupt-tx"));
    StallingRouter router = new StallingRouter(topic);
    transport =
        KafkaTransport.builder(config)
            .sendTimeout(Duration.ofSeconds(30))
            .topicRouter(router)
            .build();
    List<OutboxEvent> events = events(type);
    List<OutboxMessage> batch = events.stream().map(KafkaTransportTest::message).toList();

    InterruptedCall<List<SendResult>> caller = sendUntilStalled(batch, router);
    List<SendResult> r = interruptAndAwait(caller);

    // Nothing counts before the commit, and no commit is started after the interrupt.
    assertThat(r).hasSize(BATCH);
    assertThat(r.subList(0, ACKED))
        .containsOnly(
            SendResult.unavailable(
                "not confirmed: interrupted before the Kafka transaction committed"));
    assertThat(r.subList(ACKED, BATCH))
        .containsOnly(SendResult.unavailable("not confirmed: interrupted before it was sent"));
    assertThat(router.routed).as("no event routed after the interrupt").hasValue(ACKED + 1);
    assertThat(TopicReader.readAll(broker.bootstrapServers(), topic, true, 0)).isEmpty();

    // The transport carries on (a new producer fences the interrupted transaction's): the batch
    // goes through whole, and a read_committed consumer sees each event once.
    assertThat(transport.sendBatch(batch)).containsOnly(SendResult.delivered());
    List<UUID> committed =
        eventIds(TopicReader.readAll(broker.bootstrapServers(), topic, true, BATCH));
    assertThat(committed).containsExactlyElementsOf(events.stream().map(OutboxEvent::id).toList());
  }

  /**
   * Starts sending the batch on a thread of its own, as a relay would, and returns once the router
   * holds it at the sixth event.
   */
  private InterruptedCall<List<SendResult>> sendUntilStalled(
      List<OutboxMessage> batch, StallingRouter router) throws InterruptedException {
    InterruptedCall<List<SendResult>> caller =
        InterruptedCall.start("relay-sender", () -> transport.sendBatch(batch));
    assertThat(router.waiting.await(30, TimeUnit.SECONDS)).as("router reached event 6").isTrue();
    return caller;
  }

  /** The tests' settings: a delivery timeout that outlasts the stalled send. */
  private static Map<String, Object> config() {
    Map<String, Object> config = KafkaTransportTest.config(broker);
    config.put("delivery.timeout.ms", "20000");
    return config;
  }

  /** A batch of {@value #BATCH} events, one per aggregate. */
  private static List<OutboxEvent> events(String type) {
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < BATCH; i++) {
      events.add(event(type, "agg-" + i, "E" + i, 10));
    }
    return events;
  }

  /**
   * Routes every event to the topic. It runs on the sending thread just before each record goes to
   * the producer; at the sixth it waits until the test interrupts it, like a lookup that honours
   * interrupts, and keeps the flag. So the interrupt arrives between two sends, where {@code
   * producer.send()} would not notice it by itself (it checks only while blocking for metadata or
   * buffer memory).
   */
  private final class StallingRouter implements Function<OutboxEvent, String> {
    final AtomicInteger routed = new AtomicInteger();
    final CountDownLatch waiting = new CountDownLatch(1);
    private final String topic;

    StallingRouter(String topic) {
      this.topic = topic;
    }

    @Override
    public String apply(OutboxEvent e) {
      if (routed.incrementAndGet() == ACKED + 1) {
        waiting.countDown();
        try {
          neverReleased.await();
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
        }
      }
      return topic;
    }
  }

  /** Interrupts the sender; checks that sendBatch returned within 2 s with the flag kept. */
  private static List<SendResult> interruptAndAwait(InterruptedCall<List<SendResult>> caller)
      throws InterruptedException {
    caller.interrupt();
    List<SendResult> results = caller.await(Duration.ofSeconds(10)); // fails if it did not return
    assertThat(caller.returnedWithin()).as("interrupt to return").isLessThan(Duration.ofSeconds(2));
    assertThat(caller.interruptKept()).as("interrupt flag restored").isTrue();
    return results;
  }

  /** Passes every call through; counts down once the callback of a successful send has run. */
  @SuppressWarnings("unchecked")
  private static Producer<String, byte[]> observeAcks(
      Producer<String, byte[]> real, CountDownLatch acked) {
    return (Producer<String, byte[]>)
        Proxy.newProxyInstance(
            Producer.class.getClassLoader(),
            new Class<?>[] {Producer.class},
            (proxy, method, args) -> {
              if (method.getName().equals("send") && args != null && args.length == 2) {
                Callback callback = (Callback) args[1];
                args[1] =
                    (Callback)
                        (metadata, exception) -> {
                          if (callback != null) {
                            callback.onCompletion(metadata, exception);
                          }
                          if (exception == null) {
                            acked.countDown();
                          }
                        };
              }
              try {
                return method.invoke(real, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
