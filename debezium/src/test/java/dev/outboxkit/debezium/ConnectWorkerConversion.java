package dev.outboxkit.debezium;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;

/**
 * What a Kafka Connect worker does with a source record after the connector's transformations: the
 * configured key, value and header converters turn it into a producer record, exactly as Connect's
 * source task does it (every header converted, a null result kept as a null-valued header; the
 * record's own partition and timestamp, null letting the producer choose). Debezium's embedded
 * engine has its own conversion, which drops null headers, so the tests use this one to see what a
 * real worker would publish.
 *
 * <p>Converters are named and configured with the worker's property names: {@code key.converter},
 * {@code value.converter}, {@code header.converter}, each with its {@code <name>.}-prefixed
 * settings. Unset, they take the worker's defaults: {@code JsonConverter} for keys and values and
 * {@code SimpleHeaderConverter} for headers.
 */
final class ConnectWorkerConversion {
  private final Converter keys;
  private final Converter values;
  private final HeaderConverter headers;

  ConnectWorkerConversion(Map<String, String> workerConfig) {
    this.keys =
        converter(workerConfig, "key.converter", "org.apache.kafka.connect.json.JsonConverter");
    this.keys.configure(prefixed(workerConfig, "key.converter."), true);
    this.values =
        converter(workerConfig, "value.converter", "org.apache.kafka.connect.json.JsonConverter");
    this.values.configure(prefixed(workerConfig, "value.converter."), false);
    this.headers =
        converter(
            workerConfig,
            "header.converter",
            "org.apache.kafka.connect.storage.SimpleHeaderConverter");
    Map<String, Object> headerConfig = prefixed(workerConfig, "header.converter.");
    headerConfig.put("converter.type", "header");
    this.headers.configure(headerConfig);
  }

  /** The record the worker's producer would send; {@code topicPrefix} is prepended to the topic. */
  ProducerRecord<byte[], byte[]> convert(SourceRecord record, String topicPrefix) {
    RecordHeaders converted = new RecordHeaders();
    for (Header h : record.headers()) {
      converted.add(
          h.key(), headers.fromConnectHeader(record.topic(), h.key(), h.schema(), h.value()));
    }
    byte[] key = keys.fromConnectData(record.topic(), converted, record.keySchema(), record.key());
    byte[] value =
        values.fromConnectData(record.topic(), converted, record.valueSchema(), record.value());
    return new ProducerRecord<>(
        topicPrefix + record.topic(),
        record.kafkaPartition(),
        record.timestamp(),
        key,
        value,
        converted);
  }

  @SuppressWarnings("unchecked")
  private static <T> T converter(Map<String, String> config, String key, String fallback) {
    String name = config.getOrDefault(key, fallback);
    try {
      return (T) Class.forName(name).getConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot create " + key + " " + name, e);
    }
  }

  private static Map<String, Object> prefixed(Map<String, String> config, String prefix) {
    Map<String, Object> subset = new HashMap<>();
    config.forEach(
        (k, v) -> {
          if (k.startsWith(prefix)) {
            subset.put(k.substring(prefix.length()), v);
          }
        });
    return subset;
  }
}
