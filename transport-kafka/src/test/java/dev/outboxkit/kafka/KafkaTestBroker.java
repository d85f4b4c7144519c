package dev.outboxkit.kafka;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The Kafka transport's test broker ({@link KafkaBroker}) and {@link TopicReader}, opened to other
 * modules' tests (the fault-injection suite, the Debezium module) through this module's test-jar,
 * so they reuse that broker rather than growing a second one.
 */
public final class KafkaTestBroker implements AutoCloseable {
  private final KafkaBroker broker;
  private final boolean owned;

  private KafkaTestBroker(KafkaBroker broker, boolean owned) {
    this.broker = broker;
    this.owned = owned;
  }

  /** The broker shared by the whole test JVM; {@link #close()} leaves it running. */
  public static KafkaTestBroker shared() {
    return new KafkaTestBroker(KafkaBroker.shared(), false);
  }

  /** A broker of its own, for a test that stops it; {@link #close()} stops it for good. */
  public static KafkaTestBroker startNew(String name) {
    return new KafkaTestBroker(KafkaBroker.startNew(name), true);
  }

  /** {@code 127.0.0.1:port} of the broker listener. */
  public String bootstrapServers() {
    return broker.bootstrapServers();
  }

  /** The broker listener's port (the one producers connect to). */
  public int port() {
    String servers = broker.bootstrapServers();
    return Integer.parseInt(servers.substring(servers.lastIndexOf(':') + 1));
  }

  /** Stops the broker; its ports are free until {@link #start()}. */
  public void stop() {
    broker.stop();
  }

  /** Starts it again on the same ports and data. */
  public void start() {
    broker.start();
  }

  /** Creates a topic (and waits for its leaders) with optional topic configs. */
  public void createTopic(String topic, int partitions, Map<String, String> configs) {
    broker.createTopic(topic, partitions, configs);
  }

  /** Every record of the topic, from the beginning to the end offsets at the time of the call. */
  public List<ConsumerRecord<String, byte[]>> readAll(String topic) {
    return TopicReader.readAll(broker.bootstrapServers(), topic);
  }

  /**
   * Every record of the topics with its key as raw bytes, from the beginning to the end offsets at
   * the time of the call, reading until at least {@code atLeast} arrived. One consumer for all:
   * records of one partition come in offset order.
   */
  public List<ConsumerRecord<byte[], byte[]>> readAllRaw(Collection<String> topics, int atLeast) {
    return TopicReader.readAll(
        broker.bootstrapServers(), topics, false, atLeast, new ByteArrayDeserializer());
  }

  @Override
  public void close() {
    if (owned) {
      broker.close();
    }
  }
}
