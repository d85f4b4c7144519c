package dev.outboxkit.samples.kafka;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.jdbc.RelayListener;
import dev.outboxkit.kafka.KafkaEvents;
import dev.outboxkit.kafka.KafkaTransport;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Publishes outbox events to a Kafka broker you name, and reads them back. It appends three {@code
 * OrderPlaced} events in one transaction, runs a relay with {@link KafkaTransport}, and consumes
 * the topic, showing each record's key, event id header ({@link KafkaEvents#eventId}) and payload.
 *
 * <pre>
 * KafkaSample &lt;bootstrap-servers&gt; [&lt;jdbc-url&gt; [&lt;user&gt; &lt;password&gt;]]
 * </pre>
 *
 * The database defaults to an in-memory H2 one; given a URL (PostgreSQL, MySQL, MariaDB or H2) it
 * creates the outbox table there if missing. Exits 0 when every event came back from Kafka.
 */
public final class KafkaSample {
  /** The database used when no JDBC URL is given: {@value}. */
  public static final String DEFAULT_JDBC_URL = "jdbc:h2:mem:kafka-sample;DB_CLOSE_DELAY=-1";

  private static final int ORDERS = 3;
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private KafkaSample() {}

  /**
   * Runs the sample and exits with its status: 0 when every event came back, 1 when not, 2 on bad
   * arguments.
   *
   * @param args bootstrap servers, then optionally a JDBC URL, user and password
   * @throws Exception if the database or the broker failed in a way the sample does not handle
   */
  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out));
  }

  /**
   * Runs the sample, printing what happens to {@code out}.
   *
   * @param args as for {@link #main}
   * @param out where to print
   * @return the exit status
   * @throws Exception if the database or the broker failed in a way the sample does not handle
   */
  public static int run(String[] args, PrintStream out) throws Exception {
    if (args.length != 1 && args.length != 2 && args.length != 4) {
      out.println("usage: KafkaSample <bootstrap-servers> [<jdbc-url> [<user> <password>]]");
      return 2;
    }
    String bootstrap = args[0];
    HikariConfig pool = new HikariConfig();
    pool.setJdbcUrl(args.length > 1 ? args[1] : DEFAULT_JDBC_URL);
    if (args.length == 4) {
      pool.setUsername(args[2]);
      pool.setPassword(args[3]);
    }
    pool.setMaximumPoolSize(4);
    // The transport's default topic rule: "outbox.event." + aggregate type.
    String topic = KafkaTransport.DEFAULT_TOPIC_PREFIX + "Order";

    try (HikariDataSource ds = new HikariDataSource(pool)) {
      try (Connection c = ds.getConnection()) {
        OutboxSchema.create(c); // idempotent; in production the DDL goes into your migrations
      }
      // Without the URL's parameters: they may hold a password.
      String database = pool.getJdbcUrl().replaceFirst("\\?.*", "");
      out.printf("[setup]    database %s, broker %s%n", database, bootstrap);
      createTopicIfMissing(bootstrap, topic, out);
      Set<UUID> appended = appendOrders(ds, out);

      // Closed in reverse order: the relay stops before the transport it uses.
      try (KafkaTransport kafka =
              KafkaTransport.builder(Map.of("bootstrap.servers", bootstrap)).build();
          OutboxRelay relay =
              OutboxRelay.builder(ds, kafka).name("kafka-sample").listener(printer(out)).build()) {
        relay.start();
        relay.wakeUp();
        int received = consume(bootstrap, topic, appended, out);
        out.printf("%n%d of %d events came back from Kafka%n", received, appended.size());
        return received == appended.size() ? 0 : 1;
      }
    }
  }

  /** The business side: one transaction, several events, committed together. */
  private static Set<UUID> appendOrders(DataSource ds, PrintStream out) throws SQLException {
    String run = Long.toString(System.currentTimeMillis(), 36); // ids unique across runs
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 1; i <= ORDERS; i++) {
      String orderId = "order-" + run + "-" + i;
      events.add(
          OutboxEvent.builder("Order", orderId, "OrderPlaced")
              .payload("{\"order\":\"" + orderId + "\",\"total\":" + 10 * i + "}")
              .build());
    }
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      Outbox.appendAll(c, events);
      c.commit();
    }
    Set<UUID> ids = new HashSet<>();
    for (OutboxEvent e : events) {
      ids.add(e.id());
      out.printf(
          "[app]      appended %s %s, event id %s%n", e.eventType(), e.aggregateId(), e.id());
    }
    return ids;
  }

  /**
   * Creates the topic with the broker's default partitions and replication. A demo convenience: in
   * production, topics come from your cluster's tooling.
   */
  private static void createTopicIfMissing(String bootstrap, String topic, PrintStream out)
      throws InterruptedException {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin
          .createTopics(List.of(new NewTopic(topic, Optional.empty(), Optional.empty())))
          .all()
          .get();
      out.printf("[setup]    created topic %s%n", topic);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("cannot create topic " + topic, e.getCause());
      }
    }
  }

  /**
   * The consumer side: reads the topic from the beginning until every event of this run arrived
   * (records of earlier runs are skipped). A real consumer deduplicates on the event id, e.g. with
   * {@link dev.outboxkit.jdbc.Inbox}: delivery is at least once.
   */
  private static int consume(String bootstrap, String topic, Set<UUID> expected, PrintStream out) {
    Map<String, Object> config =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            ConsumerConfig.ISOLATION_LEVEL_CONFIG,
            "read_committed");
    Set<UUID> seen = new HashSet<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer())) {
      // No consumer group: assign every partition and read from the start.
      List<TopicPartition> partitions = new ArrayList<>();
      consumer
          .partitionsFor(topic)
          .forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (seen.size() < expected.size() && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          UUID id = KafkaEvents.eventId(record).orElse(null);
          if (id == null || !expected.contains(id)) {
            continue;
          }
          out.printf(
              "[consumer] %s key=%s id=%s %s partition %d offset %d: %s%n",
              seen.add(id) ? "received" : "duplicate",
              record.key(),
              id,
              KafkaEvents.eventType(record).orElse("?"),
              record.partition(),
              record.offset(),
              new String(record.value(), StandardCharsets.UTF_8));
        }
      }
    }
    return seen.size();
  }

  private static RelayListener printer(PrintStream out) {
    return new RelayListener() {
      @Override
      public void published(OutboxEvent event, int attempt, Duration lag) {
        out.printf(
            "[relay]    published %s %s (attempt %d, %d ms after it occurred)%n",
            event.eventType(), event.aggregateId(), attempt, lag.toMillis());
      }

      @Override
      public void retried(OutboxEvent event, int attempt, String reason, Duration delay) {
        out.printf(
            "[relay]    %s %s failed (%s), retrying%n",
            event.eventType(), event.aggregateId(), reason);
      }
    };
  }
}
