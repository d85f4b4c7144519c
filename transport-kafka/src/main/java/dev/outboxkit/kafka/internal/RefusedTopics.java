package dev.outboxkit.kafka.internal;

import dev.outboxkit.SendResult;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Topics Kafka refused: missing (auto-create off) or not writable for the transport's principal.
 * Such a topic is one destination's outage, not the transport's: its events are answered {@link
 * SendResult#unavailable(String, String) unavailable} with the scope {@code "kafka topic <name>"},
 * so the relay holds back only them, uncharged, and the other topics keep flowing.
 *
 * <p>Remembered across batches: a missing topic makes {@code producer.send} wait {@code
 * max.block.ms} for metadata, which would stall every batch that holds one of its events. Until its
 * next check a refused topic's events are answered at once, without the producer; a check lets one
 * batch try again. The interval between checks doubles from {@link #FIRST_CHECK} to {@link
 * #LONGEST_CHECK} while the topic stays refused; a record the broker acknowledges for the topic
 * forgets it. Thread-safe.
 */
final class RefusedTopics {
  static final Duration FIRST_CHECK = Duration.ofSeconds(1);
  static final Duration LONGEST_CHECK = Duration.ofSeconds(60);

  /** Topics remembered at most; beyond, the memory starts over (a router inventing names). */
  static final int MAX_TOPICS = 10_000;

  private final LongSupplier nanoTime;
  private final Map<String, Refusal> refused = new ConcurrentHashMap<>();

  private static final class Refusal {
    final SendResult answer;
    final int refusals;
    final long nextCheckNanos;

    Refusal(SendResult answer, int refusals, long nextCheckNanos) {
      this.answer = answer;
      this.refusals = refusals;
      this.nextCheckNanos = nextCheckNanos;
    }
  }

  /**
   * @param nanoTime {@code System::nanoTime}, or a test's clock
   */
  RefusedTopics(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
  }

  /** The scope of one topic's outage: {@code "kafka topic <name>"}. */
  static String scope(String topic) {
    return "kafka topic " + topic;
  }

  /**
   * The answer for an event of the topic without sending it, or null when the topic is not known
   * refused or its next check is due.
   */
  SendResult answerWithoutSending(String topic) {
    if (refused.isEmpty()) {
      return null;
    }
    Refusal r = refused.get(topic);
    return r != null && nanoTime.getAsLong() - r.nextCheckNanos < 0 ? r.answer : null;
  }

  /**
   * Kafka refused the topic again (or for the first time): its events are answered {@code answer}
   * until the next check, which comes later each time.
   */
  void refused(String topic, SendResult answer) {
    if (refused.size() >= MAX_TOPICS && !refused.containsKey(topic)) {
      refused.clear();
    }
    long now = nanoTime.getAsLong();
    refused.compute(
        topic,
        (t, old) -> {
          int refusals = old == null ? 1 : old.refusals + 1;
          return new Refusal(answer, refusals, now + interval(refusals).toNanos());
        });
  }

  /** The broker acknowledged a record for the topic: it is fine again. */
  void accepted(String topic) {
    if (!refused.isEmpty()) {
      refused.remove(topic);
    }
  }

  /** The wait before the next check after {@code refusals} refusals in a row. */
  static Duration interval(int refusals) {
    int doublings = Math.min(refusals - 1, 10);
    Duration d = FIRST_CHECK.multipliedBy(1L << doublings);
    return d.compareTo(LONGEST_CHECK) > 0 ? LONGEST_CHECK : d;
  }
}
