package dev.outboxkit.kafka.internal;

import dev.outboxkit.Failures;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the broker accepts per topic: {@code max.message.bytes} (the topic's override, else the
 * broker's {@code message.max.bytes}, as {@code DescribeConfigs} reports it) and {@code
 * compression.type}, learned with an Admin client and kept for {@link #LIFETIME}, so that a record
 * the broker would refuse for its size is refused before it is sent.
 *
 * <p>Only the first look-up of a topic waits for the answer (bounded); later ones use what is known
 * and refresh an expired entry in the background. A topic whose limit cannot be learned (no Admin
 * settings, DescribeConfigs denied, broker unreachable) is {@link Limit#UNKNOWN}, asked again after
 * {@link #UNKNOWN_RETRY}; the sender then sends an aggregate's next record only once the previous
 * one is acknowledged. A re-read that fails keeps the value last read (asked again after {@link
 * #UNKNOWN_RETRY}). Thread-safe.
 */
final class TopicLimits implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TopicLimits.class);

  /** How long a learned limit is used before it is read again: 60 seconds. */
  static final Duration LIFETIME = Duration.ofSeconds(60);

  /** How long an unknown limit stays unknown before it is asked again: 10 seconds. */
  static final Duration UNKNOWN_RETRY = Duration.ofSeconds(10);

  /** Topics remembered at most; beyond, the memory starts over (a router inventing names). */
  static final int MAX_TOPICS = 10_000;

  private final String name;
  private final Map<String, Object> adminConfig; // null: never learned
  private final LongSupplier nanoTime;
  private final Map<String, Entry> entries = new ConcurrentHashMap<>();
  private Admin admin; // created on first use, guarded by this
  private boolean closed; // guarded by this

  /** What the broker accepts for one topic. */
  static final class Limit {
    /** Nothing known: every record's fate is the broker's to tell. */
    static final Limit UNKNOWN = new Limit(-1, null);

    /** {@code max.message.bytes}, or -1 when unknown. */
    final int maxMessageBytes;

    /** The topic's {@code compression.type} ({@code producer} keeps the producer's codec). */
    final String compression;

    Limit(int maxMessageBytes, String compression) {
      this.maxMessageBytes = maxMessageBytes;
      this.compression = compression;
    }

    boolean known() {
      return maxMessageBytes >= 0;
    }

    /** True when the broker recompresses what it receives with a codec of its own. */
    boolean brokerCompresses() {
      return compression != null
          && !compression.equals("producer")
          && !compression.equals("uncompressed");
    }
  }

  private final class Entry {
    final CountDownLatch first = new CountDownLatch(1);
    volatile Limit limit = Limit.UNKNOWN;
    volatile long expiresNanos;
    volatile boolean asking;
    // Warned that the limit is unknown; cleared once it is known, so each change is logged once.
    volatile boolean warned;
  }

  /**
   * @param name for log lines
   * @param adminConfig settings to create the Admin client with, or null when the limits cannot be
   *     learned (a producer given to the transport without its settings)
   * @param nanoTime {@code System::nanoTime}, or a test's clock
   */
  TopicLimits(String name, Map<String, Object> adminConfig, LongSupplier nanoTime) {
    this.name = name;
    this.adminConfig = adminConfig;
    this.nanoTime = nanoTime;
  }

  /**
   * What the broker accepts for the topic. The first call for a topic waits up to {@code maxWait}
   * for the broker's answer; later calls never wait.
   */
  Limit get(String topic, long maxWaitNanos) {
    if (adminConfig == null) {
      return Limit.UNKNOWN;
    }
    Entry e = entries.get(topic);
    if (e == null) {
      if (entries.size() >= MAX_TOPICS) {
        entries.clear();
      }
      Entry fresh = new Entry();
      e = entries.putIfAbsent(topic, fresh);
      if (e == null) {
        e = fresh;
        ask(topic, e);
      }
      awaitFirst(e, maxWaitNanos);
    } else if (nanoTime.getAsLong() - e.expiresNanos > 0 && !e.asking) {
      ask(topic, e);
    }
    return e.limit;
  }

  /** Forgets what is known of the topic, so the next batch reads it again (it may have changed). */
  void forget(String topic) {
    entries.remove(topic);
  }

  private static void awaitFirst(Entry e, long maxWaitNanos) {
    if (maxWaitNanos <= 0 || e.first.getCount() == 0) {
      return;
    }
    try {
      e.first.await(maxWaitNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt(); // the sender checks the flag next
    }
  }

  private void ask(String topic, Entry e) {
    e.asking = true;
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    try {
      admin()
          .describeConfigs(List.of(resource))
          .values()
          .get(resource)
          .whenComplete((config, failure) -> learned(topic, e, config, failure));
    } catch (RuntimeException failure) {
      learned(topic, e, null, failure);
    }
  }

  private void learned(String topic, Entry e, Config config, Throwable failure) {
    Limit limit = Limit.UNKNOWN;
    Throwable why = failure;
    if (config != null) {
      try {
        ConfigEntry max = config.get("max.message.bytes");
        ConfigEntry compression = config.get("compression.type");
        limit =
            new Limit(
                Integer.parseInt(max.value().strip()),
                compression == null ? "producer" : compression.value());
      } catch (RuntimeException unreadable) {
        why = unreadable;
      }
    }
    boolean keepLast = !limit.known() && e.limit.known();
    if (keepLast) {
      // A re-read that failed (broker unreachable, timeout): the last value read is the best
      // guess, and a refusal it did not foresee makes the sender forget it anyway.
      log.debug(
          "[{}] re-reading the size limit of topic {} failed ({}); keeping {}",
          name,
          topic,
          Failures.describe(why),
          e.limit.maxMessageBytes);
    } else {
      e.limit = limit;
    }
    e.expiresNanos = nanoTime.getAsLong() + (limit.known() ? LIFETIME : UNKNOWN_RETRY).toNanos();
    e.asking = false;
    e.first.countDown();
    if (limit.known()) {
      e.warned = false;
    } else if (!keepLast
        && !e.warned
        && !(Classifier.unwrap(why) instanceof UnknownTopicOrPartitionException)) {
      // (A missing topic is reported by the send itself.)
      e.warned = true;
      log.warn(
          "[{}] cannot read the size limit of topic {} ({}): until it can, an aggregate's next"
              + " event in a batch is sent only after Kafka acknowledged the previous one"
              + " (allow DescribeConfigs on the topic to send them together)",
          name,
          topic,
          Failures.describe(why));
    }
  }

  private synchronized Admin admin() {
    if (closed) {
      throw new IllegalStateException("transport closed");
    }
    if (admin == null) {
      admin = Admin.create(adminConfig);
    }
    return admin;
  }

  /** Closes the Admin client, if one was created. */
  @Override
  public synchronized void close() {
    closed = true;
    if (admin != null) {
      admin.close(Duration.ZERO);
      admin = null;
    }
  }
}
