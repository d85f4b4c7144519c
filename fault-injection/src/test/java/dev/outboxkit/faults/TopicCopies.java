package dev.outboxkit.faults;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.kafka.KafkaEvents;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * What a topic holds after a scenario: the copies of each event, by the event id in the headers.
 */
final class TopicCopies {
  /** All records on the topic, every copy counted. */
  final int records;

  /** Copies per event id, written as the relay logs write it. */
  final Map<String, Integer> byId = new HashMap<>();

  private TopicCopies(List<ConsumerRecord<String, byte[]>> records) {
    this.records = records.size();
    for (ConsumerRecord<String, byte[]> r : records) {
      byId.merge(KafkaEvents.eventId(r).orElseThrow().toString(), 1, Integer::sum);
    }
  }

  /** Reads the whole topic. */
  static TopicCopies read(KafkaTestBroker broker, String topic) {
    return new TopicCopies(broker.readAll(topic));
  }

  /** How many events the topic holds at least once. */
  int distinct() {
    return byId.size();
  }

  /** Records beyond each event's first copy. */
  int duplicates() {
    return records - byId.size();
  }

  /** How many of {@code appended} the topic does not hold at all. */
  long lost(List<OutboxEvent> appended) {
    return appended.stream().filter(e -> !byId.containsKey(e.id().toString())).count();
  }
}
