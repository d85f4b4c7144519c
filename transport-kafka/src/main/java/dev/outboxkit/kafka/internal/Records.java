package dev.outboxkit.kafka.internal;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.kafka.KafkaEvents;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/** Turns an event into a Kafka record; checks the parts Kafka would refuse or consumers misread. */
public final class Records {

  /** Header names the transport writes itself; a user header may not take one of them. */
  public static final Set<String> RESERVED_HEADERS =
      Set.of(
          KafkaEvents.HEADER_EVENT_ID,
          KafkaEvents.HEADER_EVENT_TYPE,
          KafkaEvents.HEADER_AGGREGATE_TYPE,
          KafkaEvents.HEADER_SCHEMA_VERSION,
          KafkaEvents.HEADER_CONTENT_TYPE,
          KafkaEvents.HEADER_OCCURRED_AT,
          KafkaEvents.HEADER_TENANT,
          KafkaEvents.HEADER_AGGREGATE_VERSION);

  /** Longest legal topic name, as enforced by the broker. */
  static final int MAX_TOPIC_LENGTH = 249;

  private Records() {}

  /**
   * Builds the record: key = aggregate id, value = payload, the transport's headers, then the
   * event's own. No timestamp is set, so the producer stamps the send time: using {@code
   * occurredAt} instead would let time-based retention delete an event that waited in the outbox
   * for longer than the topic's {@code retention.ms} as soon as it arrives.
   *
   * @throws EventRefusedException if a user header takes a reserved name
   */
  public static ProducerRecord<String, byte[]> toRecord(OutboxEvent event, String topic) {
    RecordHeaders headers = new RecordHeaders();
    headers.add(KafkaEvents.HEADER_EVENT_ID, event.id().toString().getBytes(UTF_8));
    headers.add(KafkaEvents.HEADER_EVENT_TYPE, event.eventType().getBytes(UTF_8));
    headers.add(KafkaEvents.HEADER_AGGREGATE_TYPE, event.aggregateType().getBytes(UTF_8));
    headers.add(
        KafkaEvents.HEADER_SCHEMA_VERSION, Integer.toString(event.schemaVersion()).getBytes(UTF_8));
    headers.add(KafkaEvents.HEADER_CONTENT_TYPE, event.contentType().getBytes(UTF_8));
    headers.add(KafkaEvents.HEADER_OCCURRED_AT, event.occurredAt().toString().getBytes(UTF_8));
    if (event.tenant().isPresent()) {
      headers.add(KafkaEvents.HEADER_TENANT, event.tenant().get().getBytes(UTF_8));
    }
    if (event.aggregateVersion().isPresent()) {
      headers.add(
          KafkaEvents.HEADER_AGGREGATE_VERSION,
          Long.toString(event.aggregateVersion().getAsLong()).getBytes(UTF_8));
    }
    for (Map.Entry<String, String> h : event.headers().entrySet()) {
      if (RESERVED_HEADERS.contains(h.getKey())) {
        throw new EventRefusedException(
            "header '"
                + h.getKey()
                + "' is reserved by the Kafka transport (it writes "
                + String.join(", ", new TreeSet<>(RESERVED_HEADERS))
                + " itself); rename the event's header and replay the event");
      }
      headers.add(h.getKey(), h.getValue().getBytes(UTF_8));
    }
    return new ProducerRecord<>(topic, null, null, event.aggregateId(), event.payload(), headers);
  }

  /**
   * Checks a topic name as the broker would (1 to 249 of {@code [a-zA-Z0-9._-]}, not {@code .} or
   * {@code ..}), so a bad name fails at once with a clear reason instead of after a metadata round
   * trip.
   *
   * @throws EventRefusedException if the name is illegal
   */
  public static String checkTopic(String topic) {
    if (topic.isEmpty() || topic.equals(".") || topic.equals("..")) {
      throw new EventRefusedException("invalid topic name '" + topic + "'");
    }
    if (topic.length() > MAX_TOPIC_LENGTH) {
      throw new EventRefusedException(
          "invalid topic name: "
              + topic.length()
              + " characters, the limit is "
              + MAX_TOPIC_LENGTH
              + " (topic '"
              + topic.substring(0, 40)
              + "\u2026')");
    }
    for (int i = 0; i < topic.length(); i++) {
      char c = topic.charAt(i);
      boolean legal =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '.'
              || c == '_'
              || c == '-';
      if (!legal) {
        throw new EventRefusedException(
            "invalid topic name '"
                + topic
                + "': Kafka topic names use only letters, digits, '.', '_' and '-'"
                + " (route the event with a destination or a topic router)");
      }
    }
    return topic;
  }

  /** An event that can never be sent as it is; becomes a reject with this message as reason. */
  public static final class EventRefusedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param reason what is wrong and what to do
     */
    public EventRefusedException(String reason) {
      super(reason, null, false, false);
    }
  }
}
