package dev.outboxkit.kafka.internal;

import dev.outboxkit.Failures;
import dev.outboxkit.OutboxConfigurationException;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalDouble;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer a transport sends through: either created and owned from settings (and then
 * recreated when it breaks), or borrowed from the user (and then never closed or replaced).
 */
public final class ProducerHandle {
  private static final Logger log = LoggerFactory.getLogger(ProducerHandle.class);

  private final String name;
  private final ProducerSettings settings; // null when borrowed
  private volatile Producer<String, byte[]> producer;
  // Only read and written under the transport's transaction lock.
  private Producer<String, byte[]> transactionsInitializedFor;

  private ProducerHandle(
      String name, ProducerSettings settings, Producer<String, byte[]> producer) {
    this.name = name;
    this.settings = settings;
    this.producer = producer;
  }

  /**
   * Creates and owns a producer.
   *
   * @throws OutboxConfigurationException if Kafka refuses the settings
   */
  public static ProducerHandle owned(String name, ProducerSettings settings) {
    return new ProducerHandle(name, settings, create(settings));
  }

  /** Wraps a producer the user owns. */
  public static ProducerHandle borrowed(String name, Producer<String, byte[]> producer) {
    return new ProducerHandle(name, null, producer);
  }

  private static Producer<String, byte[]> create(ProducerSettings settings) {
    try {
      return new KafkaProducer<>(
          Map.copyOf(settings.config()), new StringSerializer(), new ByteArraySerializer());
    } catch (KafkaException e) {
      throw new OutboxConfigurationException(
          "Kafka refused the producer config: " + Failures.describe(e), e);
    }
  }

  /** The producer to use now. */
  public Producer<String, byte[]> current() {
    return producer;
  }

  /** True when the transport created the producer and so closes and replaces it. */
  public boolean owned() {
    return settings != null;
  }

  /** True when an owned producer has a {@code transactional.id}. */
  public boolean transactional() {
    return settings != null && settings.transactional();
  }

  /**
   * Settings for an Admin client of the same cluster, to learn topics' size limits with; null for a
   * borrowed producer, whose settings the transport does not know.
   */
  public Map<String, Object> adminConfig() {
    return settings == null ? null : settings.adminConfig();
  }

  /**
   * True when the producer may compress its batches: an owned one with a {@code compression.type},
   * and a borrowed one, whose settings the transport does not know.
   */
  public boolean mayCompress() {
    return settings == null || settings.compresses();
  }

  /**
   * The producer's {@code max.request.size}, above which it refuses a record itself inside {@code
   * send} (before anything leaves, naming the setting); unknown (max value) for a borrowed one.
   */
  public long maxRequestSize() {
    return settings == null ? Long.MAX_VALUE : settings.maxRequestSize();
  }

  /** Calls {@code initTransactions} once per producer instance. Call under the transaction lock. */
  public void ensureTransactionsInitialized(Producer<String, byte[]> p) {
    if (transactionsInitializedFor != p) {
      p.initTransactions();
      transactionsInitializedFor = p;
    }
  }

  /**
   * Replaces a broken owned producer with a new one. Does nothing if another thread already
   * replaced it, or if the producer is borrowed. The broken one is closed without waiting: it
   * cannot deliver anything any more, and whatever it still held is reported as not delivered.
   */
  public synchronized void replace(Producer<String, byte[]> broken, Throwable why) {
    if (settings == null || producer != broken) {
      return;
    }
    log.warn(
        "[{}] Kafka producer is unusable ({}); closing it and creating a new one",
        name,
        Failures.describe(why));
    try {
      broken.close(Duration.ZERO);
    } catch (RuntimeException e) {
      log.debug("[{}] closing the broken producer failed", name, e);
    }
    try {
      producer = create(settings);
    } catch (RuntimeException e) {
      // Keep the closed one: the next batch fails on it and tries again.
      log.error("[{}] could not create a new Kafka producer; will try again", name, e);
    }
  }

  /**
   * The producer's count of open broker connections, from its {@code connection-count} metric;
   * empty when the producer does not expose it (a mock, a wrapper).
   */
  public OptionalDouble connectionCount() {
    try {
      for (Map.Entry<MetricName, ? extends Metric> e : producer.metrics().entrySet()) {
        MetricName m = e.getKey();
        if (m.name().equals("connection-count") && m.group().equals("producer-metrics")) {
          Object value = e.getValue().metricValue();
          if (value instanceof Number) {
            return OptionalDouble.of(((Number) value).doubleValue());
          }
        }
      }
    } catch (RuntimeException e) {
      log.debug("[{}] reading producer metrics failed", name, e);
    }
    return OptionalDouble.empty();
  }

  /** Flushes and closes an owned producer within the timeout; leaves a borrowed one alone. */
  public void close(Duration timeout) {
    if (settings != null) {
      producer.close(timeout);
    }
  }
}
