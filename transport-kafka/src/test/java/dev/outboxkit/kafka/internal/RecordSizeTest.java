package dev.outboxkit.kafka.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.SendResult.Status;
import dev.outboxkit.kafka.KafkaEvents;
import dev.outboxkit.kafka.KafkaTransport;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import dev.outboxkit.testkit.kafka.TopicReader;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.internal.DefaultRecord;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RecordSizeTest {
  private static final Instant AT = Instant.parse("2025-01-31T12:13:01.123456Z");

  /** Lengths around every varint boundary a key, value, header or record length crosses. */
  @ParameterizedTest
  @ValueSource(ints = {0, 1, 62, 63, 64, 65, 8190, 8191, 8192, 8193, 100_000, 1_048_576})
  void measures_a_batch_of_one_as_kafka_does(int length) {
    RecordHeaders headers = new RecordHeaders();
    headers.add("id", "x".repeat(length % 300).getBytes(UTF_8));
    headers.add("n\u00e4me-\u20ac".repeat(1 + length % 40), null);
    ProducerRecord<String, byte[]> record =
        new ProducerRecord<>(
            "t", null, null, "k\u00e9y".repeat(1 + length % 70), new byte[length], headers);
    ProducerRecord<String, byte[]> noValue =
        new ProducerRecord<>("t", null, null, "", null, new RecordHeaders());

    assertThat(RecordSize.ofBatchOfOne(record)).isEqualTo(kafkasMeasure(record));
    assertThat(RecordSize.ofBatchOfOne(noValue)).isEqualTo(kafkasMeasure(noValue));
  }

  /**
   * The broker's verdict at the limit: a record that takes exactly the topic's {@code
   * max.message.bytes} is written, one a byte larger is refused before it is sent, and the
   * aggregate's next record in the batch is not written after it.
   */
  @Test
  void a_record_at_the_topics_limit_is_delivered_and_one_byte_more_is_refused_before_sending() {
    KafkaTestBroker broker = KafkaTestBroker.shared();
    String type = "Edge-" + UUID.randomUUID().toString().substring(0, 8);
    String topic = "outbox.event." + type;
    int limit = 65_536;
    broker.createTopic(topic, 1, Map.of("max.message.bytes", Integer.toString(limit)));
    int payload =
        60_000 + limit - (int) RecordSize.ofBatchOfOne(record(event(type, "a", 60_000), topic));
    OutboxEvent atLimit = event(type, "a", payload);
    OutboxEvent over = event(type, "b", payload + 1);
    OutboxEvent afterOver = event(type, "b", 10);
    OutboxEvent afterAtLimit = event(type, "a", 10);
    assertThat(RecordSize.ofBatchOfOne(record(atLimit, topic))).isEqualTo(limit);
    assertThat(RecordSize.ofBatchOfOne(record(over, topic))).isEqualTo(limit + 1);

    List<SendResult> results;
    try (KafkaTransport transport =
        KafkaTransport.builder(Map.of("bootstrap.servers", broker.bootstrapServers())).build()) {
      results =
          transport.sendBatch(
              List.of(
                  OutboxMessage.of(atLimit, 1),
                  OutboxMessage.of(over, 1),
                  OutboxMessage.of(afterOver, 1),
                  OutboxMessage.of(afterAtLimit, 1)));
    }

    assertThat(results.get(0)).isEqualTo(SendResult.delivered());
    assertThat(results.get(1).status()).isEqualTo(Status.REJECT);
    assertThat(results.get(1).reason().orElseThrow())
        .contains("found before sending")
        .contains("accepts at most 65536 bytes (max.message.bytes)")
        .contains("record takes 65537 ");
    assertThat(results.get(2).status()).isEqualTo(Status.RETRY);
    assertThat(results.get(2).reason().orElseThrow()).contains(over.id().toString());
    assertThat(results.get(3)).isEqualTo(SendResult.delivered());
    assertThat(TopicReader.readAll(broker.bootstrapServers(), topic))
        .extracting(r -> KafkaEvents.eventId(r).orElseThrow())
        .containsExactly(atLimit.id(), afterAtLimit.id());
  }

  private static long kafkasMeasure(ProducerRecord<String, byte[]> r) {
    Header[] headers = r.headers().toArray();
    return DefaultRecordBatch.RECORD_BATCH_OVERHEAD
        + DefaultRecord.sizeInBytes(
            0,
            0L,
            r.key() == null ? null : ByteBuffer.wrap(r.key().getBytes(UTF_8)),
            r.value() == null ? null : ByteBuffer.wrap(r.value()),
            headers);
  }

  private static ProducerRecord<String, byte[]> record(OutboxEvent e, String topic) {
    return Records.toRecord(e, topic);
  }

  private static OutboxEvent event(String type, String aggregateId, int payloadBytes) {
    return OutboxEvent.builder(type, aggregateId, "E")
        .payload(new byte[payloadBytes], "application/octet-stream")
        .occurredAt(AT)
        .build();
  }
}
