package dev.outboxkit.kafka.internal;

import dev.outboxkit.OutboxConfigurationException;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The configuration of a producer the transport creates and owns: the user's map plus OutboxKit's
 * defaults, checked once.
 */
public final class ProducerSettings {

  /**
   * Settings safe to print. Anything else (notably {@code sasl.jaas.config}, passwords, keys and
   * tokens) is never logged, whatever its name.
   */
  private static final List<String> LOGGED =
      List.of(
          ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
          ProducerConfig.ACKS_CONFIG,
          ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
          ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
          ProducerConfig.TRANSACTIONAL_ID_CONFIG,
          ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
          ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
          ProducerConfig.MAX_BLOCK_MS_CONFIG,
          ProducerConfig.LINGER_MS_CONFIG,
          ProducerConfig.COMPRESSION_TYPE_CONFIG,
          ProducerConfig.CLIENT_ID_CONFIG,
          "security.protocol",
          "sasl.mechanism");

  private final Map<String, Object> config;
  private final Duration deliveryTimeout;
  private final boolean transactional;

  private ProducerSettings(Map<String, Object> config) {
    this.config = config;
    this.deliveryTimeout = Duration.ofMillis(millis(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG));
    Object txId = config.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
    this.transactional = txId != null && !txId.toString().isBlank();
  }

  /**
   * Copies the user's settings and fills in OutboxKit's defaults where the user said nothing.
   *
   * @throws OutboxConfigurationException if a setting is missing or contradicts the transport
   */
  public static ProducerSettings of(
      Map<String, ?> userConfig, Duration deliveryTimeout, Duration maxBlock, Duration request) {
    Map<String, Object> config = copy(userConfig);
    requireBootstrapServers(config);
    refuseSerializers(config);
    // Idempotence keeps each partition in send order across the producer's internal retries;
    // acks=all keeps an acknowledged record through the loss of the partition leader.
    config.putIfAbsent(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    config.putIfAbsent(ProducerConfig.ACKS_CONFIG, "all");
    // A dead broker must not block send() for Kafka's default minute: the batch has a deadline.
    config.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(maxBlock.toMillis()));
    config.putIfAbsent(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(request.toMillis()));
    config.putIfAbsent(
        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(deliveryTimeout.toMillis()));
    // The relay hands over a whole batch and then waits for it: lingering would only make the
    // last partly filled request of every batch wait out the timer (5 ms by default in Kafka 4).
    // Records sent while a request is in flight are still batched together.
    config.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, "0");

    ProducerSettings settings = new ProducerSettings(config);
    settings.checkDeliveryTimeout();
    return settings;
  }

  private static Map<String, Object> copy(Map<String, ?> userConfig) {
    if (userConfig == null) {
      throw new OutboxConfigurationException("producer config must not be null");
    }
    Map<String, Object> config = new LinkedHashMap<>();
    for (Map.Entry<String, ?> e : userConfig.entrySet()) {
      if (e.getKey() == null || e.getValue() == null) {
        throw new OutboxConfigurationException(
            "producer config has a null key or value (key " + e.getKey() + ")");
      }
      config.put(e.getKey(), e.getValue());
    }
    return config;
  }

  private static void requireBootstrapServers(Map<String, Object> config) {
    Object servers = config.get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
    if (servers == null || servers.toString().isBlank()) {
      throw new OutboxConfigurationException(
          "producer config needs bootstrap.servers, e.g. Map.of(\"bootstrap.servers\","
              + " \"broker1:9092,broker2:9092\")");
    }
  }

  private static void refuseSerializers(Map<String, Object> config) {
    for (String key :
        List.of(
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG)) {
      if (config.containsKey(key)) {
        throw new OutboxConfigurationException(
            "remove "
                + key
                + " from the producer config: the transport always sends String keys"
                + " (the aggregate id) and byte[] values (the payload)");
      }
    }
  }

  /** Kafka refuses delivery.timeout.ms < linger.ms + request.timeout.ms; say so in our words. */
  private void checkDeliveryTimeout() {
    long linger = millis(ProducerConfig.LINGER_MS_CONFIG);
    long requestMs = millis(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG);
    if (deliveryTimeout.toMillis() < linger + requestMs) {
      throw new OutboxConfigurationException(
          "producer config: delivery.timeout.ms ("
              + deliveryTimeout.toMillis()
              + ") must be at least linger.ms + request.timeout.ms ("
              + linger
              + " + "
              + requestMs
              + ")");
    }
  }

  /** The full configuration to create the producer with. */
  public Map<String, Object> config() {
    return config;
  }

  /** The producer's {@code delivery.timeout.ms}: when it gives up on a record by itself. */
  public Duration deliveryTimeout() {
    return deliveryTimeout;
  }

  /** True when {@code transactional.id} is set: every batch runs in one Kafka transaction. */
  public boolean transactional() {
    return transactional;
  }

  /** The producer's {@code max.request.size}: it refuses a larger record itself, inside send. */
  public long maxRequestSize() {
    // Valid by now: the producer, created from this map, would have refused it.
    Object value = config.get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
    return value == null ? DEFAULT_MAX_REQUEST_SIZE : Long.parseLong(value.toString().strip());
  }

  /** Kafka's default {@code max.request.size}: 1 MiB. */
  private static final long DEFAULT_MAX_REQUEST_SIZE = 1 << 20;

  /** True when the producer compresses its batches ({@code compression.type} other than none). */
  public boolean compresses() {
    Object type = config.get(ProducerConfig.COMPRESSION_TYPE_CONFIG);
    return type != null && !type.toString().strip().equalsIgnoreCase("none");
  }

  /**
   * Settings for an Admin client that reaches the same cluster as the producer, with the same
   * security settings: the producer's map without the settings only a producer knows, and its
   * {@code client.id}, if any, suffixed {@code -limits}.
   */
  public Map<String, Object> adminConfig() {
    Set<String> producerOnly = new HashSet<>(ProducerConfig.configNames());
    producerOnly.removeAll(AdminClientConfig.configNames());
    Map<String, Object> admin = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : config.entrySet()) {
      if (!producerOnly.contains(e.getKey())) {
        admin.put(e.getKey(), e.getValue());
      }
    }
    Object clientId = admin.get(AdminClientConfig.CLIENT_ID_CONFIG);
    if (clientId != null && !clientId.toString().isBlank()) {
      admin.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId + "-limits");
    }
    return admin;
  }

  /** True unless the user turned idempotence off or lowered {@code acks}. */
  public boolean keepsOrderAndDurability() {
    return Boolean.parseBoolean(config.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG).toString())
        && isAcksAll(config.get(ProducerConfig.ACKS_CONFIG).toString());
  }

  /** The settings worth knowing, without secrets. */
  public String describe() {
    StringJoiner out = new StringJoiner(", ");
    for (String key : LOGGED) {
      Object value = config.get(key);
      if (value != null) {
        out.add(key + "=" + value);
      }
    }
    return out.toString();
  }

  private static boolean isAcksAll(String acks) {
    return acks.equals("all") || acks.equals("-1");
  }

  /** A setting in milliseconds; every setting read here has a value by then. */
  private long millis(String key) {
    Object value = config.get(key);
    if (value instanceof Number) {
      return ((Number) value).longValue();
    }
    try {
      return Long.parseLong(value.toString().strip());
    } catch (NumberFormatException e) {
      throw new OutboxConfigurationException(
          "producer config: " + key + " must be a number of milliseconds, was '" + value + "'", e);
    }
  }
}
