package dev.outboxkit.debezium;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * A Debezium embedded engine (the connector and the configured transformations, as in a Connect
 * worker) whose records are converted as a worker converts them and produced to a real Kafka
 * broker, each batch acknowledged by the broker before the engine may commit its offsets: the
 * at-least-once path of a Connect source task.
 */
final class CdcEngine implements AutoCloseable {
  private final String name;
  private final DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
  private final ExecutorService thread;
  private final KafkaProducer<byte[], byte[]> producer;
  private final ConnectWorkerConversion conversion;
  private final String topicPrefix;
  private final List<SourceRecord> published = new ArrayList<>();
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  private CdcEngine(
      String name,
      Properties connector,
      Map<String, String> workerConfig,
      String bootstrapServers,
      String topicPrefix) {
    this.name = name;
    this.conversion = new ConnectWorkerConversion(workerConfig);
    this.topicPrefix = topicPrefix;
    this.producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                "true",
                ProducerConfig.LINGER_MS_CONFIG,
                "0"),
            new ByteArraySerializer(),
            new ByteArraySerializer());
    Properties props = new Properties();
    // A test engine keeps its offsets in memory, unless the connector's properties say otherwise.
    props.put("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
    props.put("offset.flush.interval.ms", "100");
    props.putAll(connector);
    props.put("name", name);
    this.engine =
        DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
            .using(props)
            .notifying(this::publish)
            .using(
                (success, message, error) -> {
                  if (success) {
                    stopped.complete(null);
                  } else {
                    stopped.completeExceptionally(
                        new IllegalStateException("engine " + name + " failed: " + message, error));
                  }
                })
            .build();
    this.thread = Executors.newSingleThreadExecutor(r -> new Thread(r, "debezium-" + name));
    thread.execute(engine);
  }

  /**
   * Starts an engine.
   *
   * @param name the engine's name (also the name of its Connect "connector")
   * @param connector the connector's properties, transformations included
   * @param workerConfig the worker's converter settings (see {@link ConnectWorkerConversion})
   * @param bootstrapServers the broker the records go to
   * @param topicPrefix prepended to each record's topic on that broker ("" for none)
   */
  static CdcEngine start(
      String name,
      Properties connector,
      Map<String, String> workerConfig,
      String bootstrapServers,
      String topicPrefix) {
    return new CdcEngine(name, connector, workerConfig, bootstrapServers, topicPrefix);
  }

  private void publish(
      List<RecordChangeEvent<SourceRecord>> batch,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    List<Future<RecordMetadata>> sends = new ArrayList<>();
    for (RecordChangeEvent<SourceRecord> event : batch) {
      SourceRecord record = event.record();
      if (record != null) {
        sends.add(producer.send(conversion.convert(record, topicPrefix)));
      }
    }
    try {
      for (Future<RecordMetadata> send : sends) {
        send.get(30, TimeUnit.SECONDS);
      }
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("engine " + name + ": the broker refused a record", e);
    }
    synchronized (published) {
      for (RecordChangeEvent<SourceRecord> event : batch) {
        if (event.record() != null) {
          published.add(event.record());
        }
      }
      published.notifyAll();
    }
    for (RecordChangeEvent<SourceRecord> event : batch) {
      committer.markProcessed(event);
    }
    committer.markBatchFinished();
  }

  /** The records published so far (after the transformations), in order. */
  List<SourceRecord> published() {
    synchronized (published) {
      return List.copyOf(published);
    }
  }

  /** The {@code id} header of each record published so far, in order (null where absent). */
  List<String> publishedIds() {
    List<String> ids = new ArrayList<>();
    for (SourceRecord r : published()) {
      ids.add(eventId(r));
    }
    return ids;
  }

  static String eventId(SourceRecord record) {
    Header id = record.headers().lastWithName("id");
    return id == null || id.value() == null ? null : id.value().toString();
  }

  /** Waits until a published record matches, or the engine stopped, or the timeout passed. */
  boolean await(Predicate<SourceRecord> wanted, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (published) {
      while (true) {
        for (SourceRecord r : published) {
          if (wanted.test(r)) {
            return true;
          }
        }
        failIfStopped();
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        published.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 200)));
      }
    }
  }

  /** Waits until the record of this event id was published; fails after the timeout. */
  void awaitEvent(String eventId, Duration timeout) throws InterruptedException {
    if (!await(r -> eventId.equals(eventId(r)), timeout)) {
      throw new AssertionError("engine " + name + " did not publish event " + eventId);
    }
  }

  private void failIfStopped() {
    if (stopped.isCompletedExceptionally()) {
      stopped.join(); // throws the engine's failure
    }
  }

  /**
   * Stops the engine (it commits the offsets of what it published) and closes the producer.
   * Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      engine.close();
      thread.shutdown();
      if (!thread.awaitTermination(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("engine " + name + " did not stop within 30 s");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      producer.close(Duration.ofSeconds(5));
    }
  }
}
