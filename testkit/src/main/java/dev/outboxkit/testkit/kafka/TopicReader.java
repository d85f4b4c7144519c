package dev.outboxkit.testkit.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads a whole topic back with a plain consumer: assigned partitions (no group, no rebalance
 * wait), from the beginning to the end offsets found at the start.
 */
public final class TopicReader {
  private TopicReader() {}

  /** Every record of the topic, string keys, as a {@code read_uncommitted} consumer sees it. */
  public static List<ConsumerRecord<String, byte[]>> readAll(
      String bootstrapServers, String topic) {
    return readAll(bootstrapServers, topic, false, 0);
  }

  /**
   * Every record of the topic, string keys.
   *
   * @param readCommitted true to read as a {@code read_committed} consumer (aborted records and
   *     open transactions invisible)
   * @param atLeast keep reading until this many records arrived: a commit's markers reach the
   *     partitions a moment after {@code commitTransaction} returns, so the last stable offset may
   *     lag behind at first
   */
  public static List<ConsumerRecord<String, byte[]>> readAll(
      String bootstrapServers, String topic, boolean readCommitted, int atLeast) {
    return readAll(
        bootstrapServers, List.of(topic), readCommitted, atLeast, new StringDeserializer());
  }

  /**
   * As above, for several topics with one consumer, keys read by the given deserializer (e.g. raw
   * bytes). Records of one partition come in offset order.
   */
  public static <K> List<ConsumerRecord<K, byte[]>> readAll(
      String bootstrapServers,
      Collection<String> topics,
      boolean readCommitted,
      int atLeast,
      Deserializer<K> keys) {
    Map<String, Object> config =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrapServers,
            ConsumerConfig.ISOLATION_LEVEL_CONFIG,
            readCommitted ? "read_committed" : "read_uncommitted",
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            "false");
    try (KafkaConsumer<K, byte[]> consumer =
        new KafkaConsumer<>(config, keys, new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (String topic : topics) {
        for (PartitionInfo p : consumer.partitionsFor(topic, Duration.ofSeconds(10))) {
          partitions.add(new TopicPartition(topic, p.partition()));
        }
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      List<ConsumerRecord<K, byte[]>> records = new ArrayList<>();
      long giveUp = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (true) {
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(10));
        if (records.size() >= atLeast && reachedEnd(consumer, end)) {
          return records;
        }
        if (System.nanoTime() - giveUp > 0) {
          throw new AssertionError(
              "read " + records.size() + " records of " + topics + ", wanted " + atLeast);
        }
        consumer.poll(Duration.ofMillis(100)).forEach(records::add);
      }
    }
  }

  private static boolean reachedEnd(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }
}
