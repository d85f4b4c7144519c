package dev.outboxkit.kafka;

import static dev.outboxkit.kafka.KafkaTransportTest.message;
import static dev.outboxkit.kafka.KafkaTransportTest.unique;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.SendResult;
import dev.outboxkit.SendResult.Status;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import dev.outboxkit.testkit.kafka.TopicReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The promise of {@link KafkaTransport#keepsOrderWithinBatch()} when the broker refuses one record
 * of a batch for its size: the aggregate's later records of the batch are not written after it,
 * also where the transport cannot tell beforehand whether the broker will refuse it (the topic's
 * limit unknown, compression).
 */
class KafkaRefusedRecordOrderTest {
  private static final int LIMIT = 65_536;

  @Test
  void a_borrowed_producer_writes_nothing_of_an_aggregate_after_a_record_the_broker_refused() {
    KafkaTestBroker broker = KafkaTestBroker.shared();
    String type = unique("Borrowed");
    String topic =
        KafkaTransportTest.typeTopic(
            broker, type, 1, Map.of("max.message.bytes", Integer.toString(LIMIT)));
    OutboxEvent a1 = event(type, "a", "A1", new byte[10]);
    OutboxEvent a2 = event(type, "a", "A2", new byte[100_000]);
    OutboxEvent a3 = event(type, "a", "A3", new byte[10]);
    OutboxEvent b1 = event(type, "b", "B1", new byte[10]);
    OutboxEvent b2 = event(type, "b", "B2", new byte[10]);
    Map<String, Object> config = KafkaTransportTest.config(broker);
    config.put("enable.idempotence", "true");
    config.put("acks", "all");
    List<SendResult> results;
    try (KafkaProducer<String, byte[]> producer =
            new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
        KafkaTransport transport =
            KafkaTransport.builder(producer).sendTimeout(Duration.ofSeconds(15)).build()) {
      results =
          transport.sendBatch(
              List.of(message(a1), message(a2), message(a3), message(b1), message(b2)));
    }

    // The transport does not know the topic's limit: the broker refuses A2 itself, and A3 was
    // waiting for A2's answer.
    assertThat(results)
        .extracting(SendResult::status)
        .containsExactly(
            Status.DELIVERED, Status.REJECT, Status.RETRY, Status.DELIVERED, Status.DELIVERED);
    assertThat(results.get(1).reason().orElseThrow())
        .contains("RecordTooLargeException")
        .contains("max.message.bytes could not be read");
    assertThat(results.get(2).reason().orElseThrow()).contains(a2.id().toString());
    assertThat(ids(topic)).containsExactly(a1.id(), b1.id(), b2.id());
  }

  @Test
  void
      a_compressing_producer_delivers_a_record_that_fits_compressed_and_holds_back_after_one_that_does_not() {
    KafkaTestBroker broker = KafkaTestBroker.shared();
    String type = unique("Compressed");
    String topic =
        KafkaTransportTest.typeTopic(
            broker, type, 1, Map.of("max.message.bytes", Integer.toString(LIMIT)));
    byte[] noise = new byte[100_000];
    new Random(31).nextBytes(noise);
    // 100 kB of zeros compresses far below the limit; 100 kB of noise does not.
    OutboxEvent a1 = event(type, "a", "A1", new byte[100_000]);
    OutboxEvent a2 = event(type, "a", "A2", new byte[10]);
    OutboxEvent b1 = event(type, "b", "B1", noise);
    OutboxEvent b2 = event(type, "b", "B2", new byte[10]);
    OutboxEvent c1 = event(type, "c", "C1", new byte[10]);
    Map<String, Object> config = KafkaTransportTest.config(broker);
    config.put("compression.type", "lz4");
    List<SendResult> results;
    try (KafkaTransport transport = KafkaTransport.builder(config).build()) {
      results =
          transport.sendBatch(
              List.of(message(a1), message(b1), message(a2), message(b2), message(c1)));
    }

    assertThat(results)
        .extracting(SendResult::status)
        .containsExactly(
            Status.DELIVERED, Status.REJECT, Status.DELIVERED, Status.RETRY, Status.DELIVERED);
    assertThat(results.get(1).reason().orElseThrow())
        .contains("RecordTooLargeException")
        .contains("accepts at most 65536 bytes (max.message.bytes)");
    assertThat(results.get(3).reason().orElseThrow()).contains(b1.id().toString());
    assertThat(ids(topic)).containsExactlyInAnyOrder(a1.id(), a2.id(), c1.id());
    assertThat(ids(topic).indexOf(a1.id())).isLessThan(ids(topic).indexOf(a2.id()));
  }

  @Test
  void a_limit_lowered_after_it_was_read_is_read_again_once_the_broker_refuses_a_record_for_it()
      throws Exception {
    KafkaTestBroker broker = KafkaTestBroker.shared();
    String type = unique("Lowered");
    String topic =
        KafkaTransportTest.typeTopic(
            broker, type, 1, Map.of("max.message.bytes", Integer.toString(LIMIT)));
    try (KafkaTransport transport =
            KafkaTransport.builder(KafkaTransportTest.config(broker)).build();
        Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()));
        KafkaProducer<String, byte[]> probe =
            new KafkaProducer<>(
                KafkaTransportTest.config(broker),
                new StringSerializer(),
                new ByteArraySerializer())) {
      OutboxEvent a1 = event(type, "a", "A1", new byte[40_000]);
      assertThat(transport.sendBatch(List.of(message(a1)))).containsExactly(SendResult.delivered());

      // An operator halves the limit; the transport read 65536 a moment ago.
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      admin
          .incrementalAlterConfigs(
              Map.of(
                  resource,
                  List.of(
                      new AlterConfigOp(
                          new ConfigEntry("max.message.bytes", "32768"),
                          AlterConfigOp.OpType.SET))))
          .all()
          .get();
      Await.until(
          () -> refusedForSize(probe, topic),
          Duration.ofSeconds(30),
          "the broker applies the lowered limit");
      // It may refuse by the new limit before it reports it: once it reports it too, the
      // transport's reading after the refusal below cannot come back with the old one.
      Await.until(
          () -> "32768".equals(describedLimit(admin, resource)),
          Duration.ofSeconds(30),
          "the broker reports the lowered limit");

      OutboxEvent b1 = event(type, "b", "B1", new byte[40_000]);
      SendResult refused = transport.sendBatch(List.of(message(b1))).get(0);
      OutboxEvent c1 = event(type, "c", "C1", new byte[40_000]);
      OutboxEvent c2 = event(type, "c", "C2", new byte[10]);
      List<SendResult> after = transport.sendBatch(List.of(message(c1), message(c2)));

      // The broker refused B1 although the limit last read let it pass; the limit is read again,
      // so C1 is refused before it is sent and C2 is held back behind it.
      assertThat(refused.status()).isEqualTo(Status.REJECT);
      assertThat(refused.reason().orElseThrow())
          .contains("refused by Kafka")
          .contains("accepts at most 65536 bytes");
      assertThat(after).extracting(SendResult::status).containsExactly(Status.REJECT, Status.RETRY);
      assertThat(after.get(0).reason().orElseThrow())
          .contains("found before sending")
          .contains("accepts at most 32768 bytes");
      assertThat(ids(topic)).contains(a1.id()).doesNotContain(b1.id(), c1.id(), c2.id());
    }
  }

  /** Sends a 40 kB record with a plain producer; true once the broker refuses it for its size. */
  private static String describedLimit(Admin admin, ConfigResource topic) {
    try {
      return admin
          .describeConfigs(List.of(topic))
          .all()
          .get()
          .get(topic)
          .get("max.message.bytes")
          .value();
    } catch (ExecutionException e) {
      throw new AssertionError(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static boolean refusedForSize(KafkaProducer<String, byte[]> probe, String topic) {
    try {
      probe.send(new ProducerRecord<>(topic, "probe", new byte[40_000])).get();
      return false;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RecordTooLargeException) {
        return true;
      }
      throw new AssertionError(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static OutboxEvent event(String type, String aggregate, String eventType, byte[] body) {
    return OutboxEvent.builder(type, aggregate, eventType)
        .payload(body, "application/octet-stream")
        .build();
  }

  private static List<UUID> ids(String topic) {
    return KafkaTransportTest.eventIds(
        TopicReader.readAll(KafkaTestBroker.shared().bootstrapServers(), topic));
  }
}
