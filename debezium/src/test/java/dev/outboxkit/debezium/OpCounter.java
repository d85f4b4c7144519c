package dev.outboxkit.debezium;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.transforms.Transformation;

/**
 * A test transformation to put first in a chain: counts the change events a connector emits, by
 * operation ({@code c}, {@code u}, {@code d}, {@code r}), under the name given as its {@code name}
 * option, and passes every record on unchanged.
 */
public final class OpCounter<R extends ConnectRecord<R>> implements Transformation<R> {
  private static final Map<String, Map<String, AtomicInteger>> COUNTS = new ConcurrentHashMap<>();
  private Map<String, AtomicInteger> counts;

  /** How many change events of this operation the chain named {@code name} saw. */
  static int count(String name, String op) {
    AtomicInteger n = COUNTS.getOrDefault(name, Map.of()).get(op);
    return n == null ? 0 : n.get();
  }

  @Override
  public void configure(Map<String, ?> configs) {
    counts = COUNTS.computeIfAbsent((String) configs.get("name"), n -> new ConcurrentHashMap<>());
  }

  @Override
  public R apply(R record) {
    if (record.value() instanceof Struct) {
      Struct value = (Struct) record.value();
      if (value.schema().field("op") != null && value.get("op") != null) {
        counts.computeIfAbsent(value.getString("op"), op -> new AtomicInteger()).incrementAndGet();
      }
    }
    return record;
  }

  @Override
  public ConfigDef config() {
    return new ConfigDef();
  }

  @Override
  public void close() {}
}
