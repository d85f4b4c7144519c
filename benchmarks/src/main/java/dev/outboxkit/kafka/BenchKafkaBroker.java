package dev.outboxkit.kafka;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * The Kafka transport's in-JVM KRaft test broker ({@link KafkaBroker}, package-private in that
 * module's test-jar), opened to the benchmarks. It lives in the broker's package (on the class
 * path, packages may span jars) so the benchmarks reuse that broker rather than growing a second
 * one; the fault-injection suite does the same.
 */
public final class BenchKafkaBroker implements AutoCloseable {
  private final KafkaBroker broker;
  private final Admin admin;

  private BenchKafkaBroker(KafkaBroker broker) {
    this.broker = broker;
    this.admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()));
  }

  /** Formats storage under {@code target/kafka} and starts a broker; the caller closes it. */
  public static BenchKafkaBroker start(String name) {
    return new BenchKafkaBroker(KafkaBroker.startNew(name));
  }

  /** {@code 127.0.0.1:port} of the broker listener. */
  public String bootstrapServers() {
    return broker.bootstrapServers();
  }

  /** Creates a topic and waits until every partition has a leader that takes writes. */
  public void createTopic(String topic, int partitions) {
    broker.createTopic(topic, partitions);
  }

  /** Records in the topic: the sum of its partitions' end offsets (nothing is ever deleted). */
  public long records(String topic, int partitions) {
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      request.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    try {
      long sum = 0;
      for (ListOffsetsResultInfo info : admin.listOffsets(request).all().get().values()) {
        sum += info.offset();
      }
      return sum;
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot read the end offsets of " + topic, e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Stops the broker. */
  @Override
  public void close() {
    admin.close();
    broker.close();
  }
}
