package dev.outboxkit.kafka;

import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The Kafka transport's test broker ({@link KafkaBroker}) and {@link TopicReader}, opened to the
 * samples' tests. Both are package-private in the transport's test-jar; this class lives in the
 * same package (on the class path, packages may span jars) so the samples reuse that broker.
 */
public final class KafkaTestBroker {
  private KafkaTestBroker() {}

  /** {@code 127.0.0.1:port} of the broker shared by the whole test JVM, started on first use. */
  public static String bootstrapServers() {
    return KafkaBroker.shared().bootstrapServers();
  }

  /** Every record of the topic, from the beginning to the end offsets at the time of the call. */
  public static List<ConsumerRecord<String, byte[]>> readAll(String topic) {
    return TopicReader.readAll(bootstrapServers(), topic);
  }
}
