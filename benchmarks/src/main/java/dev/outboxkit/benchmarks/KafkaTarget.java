package dev.outboxkit.benchmarks;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.Transport;
import dev.outboxkit.kafka.KafkaEvents;
import dev.outboxkit.kafka.KafkaTransport;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** The in-JVM KRaft broker; raw client: a plain idempotent producer, all sends pipelined. */
final class KafkaTarget implements BrokerTarget {
  private static final int PARTITIONS = 3;

  private final KafkaTestBroker broker;
  private final AtomicInteger topics = new AtomicInteger();

  private KafkaTarget(KafkaTestBroker broker) {
    this.broker = broker;
  }

  static KafkaTarget start() {
    return new KafkaTarget(KafkaTestBroker.startNew("bench"));
  }

  @Override
  public String name() {
    return "Kafka";
  }

  @Override
  public String describe() {
    return "Kafka: the in-JVM KRaft broker (one node), a fresh topic of "
        + PARTITIONS
        + " partitions per round; raw client: a KafkaProducer with acks=all and idempotence"
        + " sending every record at once, then flush()";
  }

  @Override
  public int events(boolean quick) {
    return quick ? 5_000 : 50_000;
  }

  @Override
  public String newDestination() {
    String topic = "bench-" + topics.incrementAndGet();
    broker.createTopic(topic, PARTITIONS);
    return topic;
  }

  @Override
  public Transport transport(String destination) {
    return KafkaTransport.builder(Map.of("bootstrap.servers", broker.bootstrapServers()))
        .name("bench")
        .topicRouter(e -> destination)
        .build();
  }

  @Override
  public double sendRaw(String destination, List<OutboxEvent> events, int batchSize) {
    Map<String, Object> config =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            broker.bootstrapServers(),
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
            true);
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer())) {
      AtomicReference<Exception> failure = new AtomicReference<>();
      long start = System.nanoTime();
      for (OutboxEvent e : events) {
        producer.send(
            record(destination, e),
            (metadata, exception) -> {
              if (exception != null) {
                failure.compareAndSet(null, exception);
              }
            });
      }
      producer.flush();
      double seconds = (System.nanoTime() - start) / 1e9;
      if (failure.get() != null) {
        throw new IllegalStateException("raw producer failed", failure.get());
      }
      return seconds;
    }
  }

  /** The record the transport sends: key = aggregate id, payload, the same headers. */
  private static ProducerRecord<String, byte[]> record(String topic, OutboxEvent e) {
    RecordHeaders headers = new RecordHeaders();
    headers.add(KafkaEvents.HEADER_EVENT_ID, e.id().toString().getBytes(UTF_8));
    headers.add(KafkaEvents.HEADER_EVENT_TYPE, e.eventType().getBytes(UTF_8));
    headers.add(KafkaEvents.HEADER_AGGREGATE_TYPE, e.aggregateType().getBytes(UTF_8));
    headers.add(
        KafkaEvents.HEADER_SCHEMA_VERSION, Integer.toString(e.schemaVersion()).getBytes(UTF_8));
    headers.add(KafkaEvents.HEADER_CONTENT_TYPE, e.contentType().getBytes(UTF_8));
    headers.add(KafkaEvents.HEADER_OCCURRED_AT, e.occurredAt().toString().getBytes(UTF_8));
    for (Map.Entry<String, String> h : e.headers().entrySet()) {
      headers.add(h.getKey(), h.getValue().getBytes(UTF_8));
    }
    return new ProducerRecord<>(topic, null, null, e.aggregateId(), e.payload(), headers);
  }

  @Override
  public long arrived(String destination) {
    return broker.records(destination, PARTITIONS);
  }

  @Override
  public void close() {
    broker.close();
  }
}
