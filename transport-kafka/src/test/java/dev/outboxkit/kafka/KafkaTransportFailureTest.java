package dev.outboxkit.kafka;

import static dev.outboxkit.kafka.KafkaTransportTest.event;
import static dev.outboxkit.kafka.KafkaTransportTest.message;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.SendResult.Status;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Classification and builder rules, on Kafka's own {@link MockProducer}: the failures below cannot
 * be provoked on demand from a single plain-text broker. The real-broker behaviour is in {@link
 * KafkaTransportTest} and {@link KafkaOutageTest}.
 */
class KafkaTransportFailureTest {

  static Stream<Arguments> failures() {
    return Stream.of(
        Arguments.of(new RecordTooLargeException("too big"), Status.REJECT, "too big"),
        Arguments.of(new SerializationException("bad bytes"), Status.REJECT, "bad bytes"),
        Arguments.of(new InvalidTopicException("bad topic"), Status.REJECT, "bad topic"),
        // One topic's permission: that topic's outage, not the event's fault (scope below).
        Arguments.of(
            new TopicAuthorizationException(Set.of("orders")),
            Status.UNAVAILABLE,
            "permission for the topic (configuration problem)"),
        // The producer itself refused: every event would fail alike, so none is charged.
        Arguments.of(
            new ClusterAuthorizationException("no IdempotentWrite"),
            Status.UNAVAILABLE,
            "configuration problem"),
        Arguments.of(
            new TransactionalIdAuthorizationException("no Write on transactional id"),
            Status.UNAVAILABLE,
            "configuration problem"),
        Arguments.of(
            new SaslAuthenticationException("bad password"),
            Status.UNAVAILABLE,
            "configuration problem"),
        Arguments.of(
            new SslAuthenticationException("PKIX path building failed"),
            Status.UNAVAILABLE,
            "configuration problem"),
        Arguments.of(new NotEnoughReplicasException("isr"), Status.RETRY, "isr"),
        Arguments.of(new UnknownServerException("boom"), Status.RETRY, "boom"),
        Arguments.of(
            new TimeoutException(
                "Topic t not present in metadata after 5000 ms.",
                new UnknownTopicOrPartitionException("unknown")),
            Status.UNAVAILABLE,
            "topic does not exist"),
        // A lone record timing out with no sign of the broker: an outage, not charged.
        Arguments.of(new TimeoutException("Expiring 1 record(s)"), Status.UNAVAILABLE, "Expiring"),
        // Only the owner of a borrowed producer can replace it: nothing to charge the event for.
        Arguments.of(new ProducerFencedException("fenced"), Status.UNAVAILABLE, "replace it"));
  }

  @ParameterizedTest
  @MethodSource("failures")
  void send_classifies_failure_as_documented(
      RuntimeException failure, Status expected, String reasonPart) {
    MockProducer<String, byte[]> producer = mockProducer(true);
    producer.sendException = failure;
    KafkaTransport transport = KafkaTransport.builder(producer).build();

    SendResult result = transport.send(message(event("Order", "o-1", "OrderPlaced", 10)));

    assertThat(result.status()).isEqualTo(expected);
    assertThat(result.reason().orElseThrow()).contains(reasonPart);
  }

  @Test
  void sendBatch_reports_whole_batch_unavailable_when_credentials_are_refused() {
    MockProducer<String, byte[]> producer = mockProducer(true);
    producer.sendException = new SaslAuthenticationException("bad password");
    KafkaTransport transport = KafkaTransport.builder(producer).build();

    List<SendResult> results =
        transport.sendBatch(
            List.of(
                message(event("Order", "a", "A1", 10)),
                message(event("Invoice", "b", "B1", 10)),
                message(event("Order", "c", "C1", 10))));

    assertThat(results).extracting(SendResult::status).containsOnly(Status.UNAVAILABLE);
    // The first refusal stands for all: the others are not even handed to the producer.
    assertThat(producer.history()).isEmpty();
  }

  @Test
  void sendBatch_answers_refused_topic_as_its_own_outage_and_skips_it_until_the_next_check() {
    AtomicInteger refusedSends = new AtomicInteger();
    MockProducer<String, byte[]> producer =
        new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer()) {
          @Override
          public synchronized Future<RecordMetadata> send(
              ProducerRecord<String, byte[]> record, Callback callback) {
            if (!record.topic().equals("outbox.event.Secret")) {
              return super.send(record, callback);
            }
            refusedSends.incrementAndGet();
            TopicAuthorizationException denied = new TopicAuthorizationException(Set.of("x"));
            callback.onCompletion(null, denied);
            return CompletableFuture.failedFuture(denied);
          }
        };
    KafkaTransport transport = KafkaTransport.builder(producer).build();

    List<SendResult> first =
        transport.sendBatch(
            List.of(
                message(event("Secret", "a", "A1", 10)),
                message(event("Order", "b", "B1", 10)),
                message(event("Secret", "c", "C1", 10))));
    List<SendResult> second =
        transport.sendBatch(
            List.of(
                message(event("Secret", "d", "D1", 10)), message(event("Order", "e", "E1", 10))));

    assertThat(first.get(0).status()).isEqualTo(Status.UNAVAILABLE);
    assertThat(first.get(0).scope()).contains("kafka topic outbox.event.Secret");
    assertThat(first.get(1)).isEqualTo(SendResult.delivered());
    assertThat(first.get(2).scope()).contains("kafka topic outbox.event.Secret");
    assertThat(second.get(0)).isEqualTo(first.get(0));
    assertThat(second.get(1)).isEqualTo(SendResult.delivered());
    // Only the first event for the topic went to the producer: the batch's second got the same
    // answer, and the next batch (within the first second) did not try the topic again.
    assertThat(refusedSends).hasValue(1);
    assertThat(producer.history()).extracting(r -> r.topic()).containsOnly("outbox.event.Order");
  }

  @Test
  void sendBatch_logs_refused_credentials_once_per_burst_when_they_keep_failing()
      throws IOException {
    MockProducer<String, byte[]> producer = mockProducer(true);
    String name = "creds-" + System.nanoTime();
    KafkaTransport transport = KafkaTransport.builder(producer).name(name).build();
    String errorLine = "[" + name + "] Kafka refused the transport's credentials";
    producer.sendException = new SaslAuthenticationException("bad password");
    for (int i = 0; i < 3; i++) {
      transport.sendBatch(
          List.of(
              message(event("Order", "a", "A" + i, 10)), message(event("Order", "b", "B", 10))));
    }
    producer.sendException = null;
    assertThat(transport.send(message(event("Order", "a", "A9", 10))))
        .isEqualTo(SendResult.delivered());
    producer.sendException = new ClusterAuthorizationException("no IdempotentWrite");
    transport.send(message(event("Order", "a", "A10", 10)));

    // Test logs go to target/test.log (simplelogger.properties); the name makes the lines ours.
    String log = Files.readString(Path.of("target/test.log"), UTF_8);
    assertThat(log.lines().filter(l -> l.contains("ERROR") && l.contains(errorLine)))
        .as("one ERROR for the first burst of three batches, one for the second burst")
        .hasSize(2);
    assertThat(log).contains("[" + name + "] Kafka accepts the transport's credentials again");
  }

  @Test
  void sendBatch_reports_delivered_only_when_acknowledgement_arrives() {
    MockProducer<String, byte[]> producer = mockProducer(false);
    KafkaTransport transport =
        KafkaTransport.builder(producer).sendTimeout(Duration.ofSeconds(30)).build();
    List<OutboxMessage> batch =
        List.of(
            message(event("Order", "a", "A1", 10)),
            message(event("Order", "b", "B1", 10)),
            message(event("Order", "c", "C1", 10)));

    CompletableFuture<List<SendResult>> results =
        CompletableFuture.supplyAsync(() -> transport.sendBatch(batch));
    awaitSent(producer, 3);
    assertThat(results).isNotDone();
    producer.completeNext();
    producer.errorNext(new NotEnoughReplicasException("isr shrank"));
    assertThat(results).isNotDone();
    producer.completeNext();

    List<SendResult> r = results.join();
    assertThat(r.get(0)).isEqualTo(SendResult.delivered());
    assertThat(r.get(1).status()).isEqualTo(Status.RETRY);
    assertThat(r.get(1).reason().orElseThrow()).contains("isr shrank");
    assertThat(r.get(2)).isEqualTo(SendResult.delivered());
  }

  @Test
  void sendBatch_reports_unacknowledged_events_as_not_delivered_when_send_timeout_passes() {
    MockProducer<String, byte[]> producer = mockProducer(false);
    KafkaTransport transport =
        KafkaTransport.builder(producer).sendTimeout(Duration.ofMillis(200)).build();

    List<SendResult> results =
        transport.sendBatch(
            List.of(message(event("Order", "a", "A1", 10)), message(event("Order", "b", "B", 10))));

    assertThat(results)
        .extracting(SendResult::status)
        .containsExactly(Status.UNAVAILABLE, Status.UNAVAILABLE);
    assertThat(results.get(0).reason().orElseThrow()).contains("no acknowledgement");
  }

  @Test
  void sendBatch_reports_unavailable_when_borrowed_producer_is_closed() {
    MockProducer<String, byte[]> producer = mockProducer(true);
    producer.close();
    KafkaTransport transport = KafkaTransport.builder(producer).build();

    List<SendResult> results =
        transport.sendBatch(
            List.of(message(event("Order", "a", "A1", 10)), message(event("Order", "b", "B", 10))));

    assertThat(results).extracting(SendResult::status).containsOnly(Status.UNAVAILABLE);
    assertThat(results.get(0).reason().orElseThrow()).contains("closed").contains("replace it");
  }

  @Test
  void close_never_closes_a_borrowed_producer() {
    MockProducer<String, byte[]> producer = mockProducer(true);
    KafkaTransport transport = KafkaTransport.builder(producer).build();

    transport.close();

    assertThat(producer.closed()).isFalse();
  }

  @Test
  void builder_refuses_config_without_bootstrap_servers() {
    assertThatThrownBy(() -> KafkaTransport.builder(Map.of("acks", "all")).build())
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("bootstrap.servers");
  }

  @Test
  void builder_refuses_config_with_serializers() {
    Map<String, Object> config =
        Map.of(
            "bootstrap.servers",
            "127.0.0.1:9",
            "value.serializer",
            StringSerializer.class.getName());

    assertThatThrownBy(() -> KafkaTransport.builder(config).build())
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("value.serializer");
  }

  @Test
  void build_refuses_send_timeout_shorter_than_the_producers_delivery_timeout() {
    Map<String, Object> config =
        Map.of("bootstrap.servers", "127.0.0.1:9", "delivery.timeout.ms", 60_000);

    assertThatThrownBy(() -> KafkaTransport.builder(config).build())
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("sendTimeout (PT25S) is shorter than")
        .hasMessageContaining("60000");
  }

  @Test
  void build_refuses_delivery_timeout_below_linger_plus_request_timeout() {
    Map<String, Object> config =
        Map.of(
            "bootstrap.servers",
            "127.0.0.1:9",
            "delivery.timeout.ms",
            "5000",
            "request.timeout.ms",
            "5000",
            "linger.ms",
            "10");

    assertThatThrownBy(() -> KafkaTransport.builder(config).build())
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("linger.ms + request.timeout.ms");
  }

  @Test
  void options_refuse_invalid_values_where_they_are_set() {
    KafkaTransport.Builder builder = KafkaTransport.builder(mockProducer(true));

    assertThatThrownBy(() -> builder.sendTimeout(Duration.ZERO))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("sendTimeout");
    assertThatThrownBy(() -> builder.closeTimeout(Duration.ofSeconds(-1)))
        .isInstanceOf(OutboxConfigurationException.class);
    assertThatThrownBy(() -> builder.name(" ")).isInstanceOf(OutboxConfigurationException.class);
    assertThatThrownBy(() -> builder.topicRouter(null))
        .isInstanceOf(OutboxConfigurationException.class);
  }

  @Test
  void send_retries_event_when_topic_router_throws() {
    KafkaTransport transport =
        KafkaTransport.builder(mockProducer(true))
            .topicRouter(
                e -> {
                  throw new IllegalStateException("routing table not loaded");
                })
            .build();

    SendResult result = transport.send(message(event("Order", "a", "A1", 10)));

    assertThat(result.status()).isEqualTo(Status.RETRY);
    assertThat(result.reason().orElseThrow()).contains("routing table not loaded");
  }

  /**
   * A borrowed producer: the topic's limit is unknown, so each record gates its aggregate. A2 waits
   * for A1's acknowledgement; A1's arrives while B1 is routed, before A3's turn: A3 must still go
   * after A2, not overtake it.
   */
  @Test
  void sendBatch_keeps_a_later_record_behind_one_waiting_for_its_aggregates_acknowledgement() {
    MockProducer<String, byte[]> producer = mockProducer(false);
    OutboxMessage a1 = message(event("Order", "a", "A1", 10));
    OutboxMessage a2 = message(event("Order", "a", "A2", 10));
    OutboxMessage b1 = message(event("Order", "b", "B1", 10));
    OutboxMessage a3 = message(event("Order", "a", "A3", 10));
    KafkaTransport transport =
        KafkaTransport.builder(producer)
            .sendTimeout(Duration.ofSeconds(30))
            .topicRouter(
                e -> {
                  if (e.id().equals(b1.event().id())) {
                    producer.completeNext(); // A1 acknowledged now
                  }
                  return null;
                })
            .build();

    CompletableFuture<List<SendResult>> results =
        CompletableFuture.supplyAsync(() -> transport.sendBatch(List.of(a1, a2, b1, a3)));
    // Acknowledging A1 from here before B1 is handed over would let A2 overtake B1 legitimately.
    awaitSent(producer, 2);
    while (!results.isDone()) {
      producer.completeNext(); // acknowledge whatever the transport handed over
      Thread.onSpinWait();
    }

    assertThat(results.join()).containsOnly(SendResult.delivered());
    assertThat(producer.history())
        .extracting(r -> new String(r.headers().lastHeader("outbox-event-type").value(), UTF_8))
        .containsExactly("A1", "B1", "A2", "A3");
  }

  private static MockProducer<String, byte[]> mockProducer(boolean autoComplete) {
    return new MockProducer<>(
        autoComplete, null, new StringSerializer(), new ByteArraySerializer());
  }

  // The batch is handed over on another thread; wait until the producer holds all of it.
  private static void awaitSent(MockProducer<String, byte[]> producer, int count) {
    long giveUp = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (producer.history().size() < count) {
      if (System.nanoTime() - giveUp > 0) {
        throw new AssertionError("the transport did not send " + count + " records");
      }
      Thread.onSpinWait();
    }
  }
}
