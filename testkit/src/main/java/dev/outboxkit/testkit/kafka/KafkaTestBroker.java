package dev.outboxkit.testkit.kafka;

import dev.outboxkit.testkit.Ports;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kafka broker in this JVM, KRaft combined mode (broker and controller in one node), on two
 * random loopback ports, data under {@code target/kafka}. Auto-creation of topics is off, so tests
 * create their topics and can see what a missing one does.
 *
 * <p>{@link #shared()} is one broker for the whole JVM, stopped by a shutdown hook; closing it does
 * nothing. A test that stops the broker starts its own with {@link #startNew(String)} and closes
 * it; {@link #stop()} and {@link #start()} keep the ports and the data, so a restart looks to
 * clients like an outage that ended.
 *
 * <p>The Kafka server ({@code org.apache.kafka:kafka_2.13}) is an optional dependency of the test
 * kit: a module that uses this class declares it, at the Kafka version of its client.
 */
public final class KafkaTestBroker implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KafkaTestBroker.class);
  private static KafkaTestBroker shared;

  private final Properties props;
  private final String bootstrapServers;
  private final boolean owned;
  private KafkaRaftServer server;
  private Admin admin;

  private KafkaTestBroker(Properties props, String bootstrapServers, boolean owned) {
    this.props = props;
    this.bootstrapServers = bootstrapServers;
    this.owned = owned;
  }

  /**
   * The broker shared by the whole JVM, started on first use; {@link #close()} leaves it running.
   */
  public static synchronized KafkaTestBroker shared() {
    if (shared == null) {
      KafkaTestBroker broker = launch("shared", false);
      Runtime.getRuntime().addShutdownHook(new Thread(broker::shutDown, "kafka-broker-shutdown"));
      shared = broker;
    }
    return shared;
  }

  /**
   * Formats storage for and starts a broker of its own, for a test that stops it or wants its
   * topics apart; {@link #close()} stops it for good.
   *
   * @param name names its data directory and its log line
   */
  public static KafkaTestBroker startNew(String name) {
    return launch(name, true);
  }

  private static KafkaTestBroker launch(String name, boolean owned) {
    try {
      // Kafka and its compression natives write to java.io.tmpdir, pointed at target/tmp by the
      // build; make sure it exists.
      Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
      Path dir = Files.createTempDirectory(createBase(), name + "-");
      int brokerPort = Ports.unused();
      int controllerPort = Ports.unused();
      Properties props = new Properties();
      props.put("process.roles", "broker,controller");
      props.put("node.id", "1");
      props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
      props.put(
          "listeners",
          "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
      props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
      props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
      props.put("controller.listener.names", "CONTROLLER");
      props.put("inter.broker.listener.name", "PLAINTEXT");
      props.put("log.dirs", dir.resolve("data").toAbsolutePath().toString());
      props.put("auto.create.topics.enable", "false");
      props.put("num.partitions", "1");
      props.put("offsets.topic.replication.factor", "1");
      props.put("offsets.topic.num.partitions", "1");
      props.put("transaction.state.log.replication.factor", "1");
      props.put("transaction.state.log.min.isr", "1");
      props.put("transaction.state.log.num.partitions", "1");
      props.put("share.coordinator.state.topic.replication.factor", "1");
      props.put("share.coordinator.state.topic.min.isr", "1");
      props.put("group.initial.rebalance.delay.ms", "0");
      Path propsFile = dir.resolve("server.properties");
      try (OutputStream out = Files.newOutputStream(propsFile)) {
        props.store(out, "OutboxKit test broker");
      }
      long formatStart = System.nanoTime();
      ByteArrayOutputStream formatLog = new ByteArrayOutputStream();
      int rc =
          StorageTool.execute(
              new String[] {
                "format", "-t", Uuid.randomUuid().toString(), "-c", propsFile.toString()
              },
              new PrintStream(formatLog, true, StandardCharsets.UTF_8));
      if (rc != 0) {
        throw new IllegalStateException(
            "formatting Kafka storage failed: " + formatLog.toString(StandardCharsets.UTF_8));
      }
      long startStart = System.nanoTime();
      KafkaTestBroker broker = new KafkaTestBroker(props, "127.0.0.1:" + brokerPort, owned);
      broker.start();
      log.info(
          "Kafka broker '{}' on {}: storage formatted in {} ms, started in {} ms",
          name,
          broker.bootstrapServers,
          (startStart - formatStart) / 1_000_000,
          (System.nanoTime() - startStart) / 1_000_000);
      return broker;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts the broker again, on the same ports and data; does nothing if it runs. */
  public synchronized void start() {
    if (server == null) {
      KafkaRaftServer s = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
      s.startup();
      server = s;
    }
  }

  /** Stops the broker; clients see connection failures until {@link #start()}. */
  public synchronized void stop() {
    if (server != null) {
      server.shutdown();
      server.awaitShutdown();
      server = null;
    }
  }

  /** {@code 127.0.0.1:port} of the broker listener. */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** The broker listener's port (the one producers connect to). */
  public int port() {
    return Integer.parseInt(bootstrapServers.substring(bootstrapServers.lastIndexOf(':') + 1));
  }

  /**
   * Creates a topic (no-op if it exists), with optional topic configs, and waits until every
   * partition has a working leader.
   *
   * <p>The wait matters: right after creation the metadata already names the leader while the
   * broker may still refuse writes with NOT_LEADER_OR_FOLLOWER. An idempotent producer whose first
   * batch meets that can see its later batches accepted and the first one then refused as out of
   * sequence until it expires (seen with Kafka 4.3.1 on a loaded machine), which would make tests
   * fail for a reason that has nothing to do with the transport.
   */
  public void createTopic(String topic, int partitions, Map<String, String> configs) {
    try {
      admin()
          .createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(configs)))
          .all()
          .get();
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
        throw new IllegalStateException("creating topic " + topic + " failed", e.getCause());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    awaitLeaders(topic, partitions);
  }

  // ListOffsets is answered only by a partition's ready leader.
  private void awaitLeaders(String topic, int partitions) {
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      request.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    long giveUp = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      try {
        admin().listOffsets(request).all().get();
        return;
      } catch (ExecutionException e) {
        if (System.nanoTime() - giveUp > 0) {
          throw new IllegalStateException("topic " + topic + " has no leader", e.getCause());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  /** {@link #createTopic(String, int, Map)} without topic configs. */
  public void createTopic(String topic, int partitions) {
    createTopic(topic, partitions, Map.of());
  }

  /** Records in the topic: the sum of its partitions' end offsets. */
  public long records(String topic, int partitions) {
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      request.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    try {
      long sum = 0;
      for (ListOffsetsResultInfo info : admin().listOffsets(request).all().get().values()) {
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

  /** Every record of the topic, from the beginning to the end offsets at the time of the call. */
  public List<ConsumerRecord<String, byte[]>> readAll(String topic) {
    return TopicReader.readAll(bootstrapServers, topic);
  }

  /**
   * Every record of the topics with its key as raw bytes, from the beginning to the end offsets at
   * the time of the call, reading until at least {@code atLeast} arrived. One consumer for all:
   * records of one partition come in offset order.
   */
  public List<ConsumerRecord<byte[], byte[]>> readAllRaw(Collection<String> topics, int atLeast) {
    return TopicReader.readAll(
        bootstrapServers, topics, false, atLeast, new ByteArrayDeserializer());
  }

  private synchronized Admin admin() {
    if (admin == null) {
      admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
    }
    return admin;
  }

  /** Stops a broker of its own for good; the {@link #shared()} one stops with the JVM. */
  @Override
  public void close() {
    if (owned) {
      shutDown();
    }
  }

  private synchronized void shutDown() {
    if (admin != null) {
      admin.close();
      admin = null;
    }
    stop();
  }

  private static Path createBase() throws IOException {
    return Files.createDirectories(Path.of("target", "kafka").toAbsolutePath());
  }
}
