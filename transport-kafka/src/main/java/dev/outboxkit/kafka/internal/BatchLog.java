package dev.outboxkit.kafka.internal;

import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.internal.BatchTally;
import dev.outboxkit.kafka.internal.Classifier.Category;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a {@link BatchSender}'s batches tell the operator: refused credentials, permissions and
 * missing topics, rejections, outages, and a DEBUG line per batch.
 */
final class BatchLog {
  // Under the sender's name, as these lines always were: operators' log settings name it.
  private static final Logger log = LoggerFactory.getLogger(BatchSender.class);

  private final String name;
  // True from the first batch Kafka refused the credentials (or cluster permissions) for until a
  // batch gets through: the ERROR is logged once per such burst, not once per batch or probe.
  private final AtomicBoolean configurationFailing = new AtomicBoolean();

  BatchLog(String name) {
    this.name = name;
  }

  /**
   * Logs the outcome of one batch.
   *
   * @param batch the batch sent
   * @param results its results, in order
   * @param categories each failed record's category, null for the others
   * @param topics each record's topic, null where it is not known
   * @param unreachable true when the batch was found to meet an outage of Kafka
   * @param interrupted true when an interrupt ended the sending
   * @param startNanos when the batch began, on {@link System#nanoTime}
   */
  void batch(
      List<OutboxMessage> batch,
      List<SendResult> results,
      Category[] categories,
      String[] topics,
      boolean unreachable,
      boolean interrupted,
      long startNanos) {
    BatchTally tally = BatchTally.of(batch, results);
    configuration(lastReason(results, categories, Category.CONFIGURATION), tally);
    topicProblems(results, categories, topics);
    if (tally.reject > 0) {
      log.warn("[{}] {} event(s) rejected; first: {}", name, tally.reject, tally.firstReject);
    }
    if (unreachable) {
      log.warn(
          "[{}] Kafka unreachable: {} event(s) not delivered, no attempt charged",
          name,
          tally.unavailable);
    } else if (interrupted) {
      log.info(
          "[{}] interrupted while sending; {} event(s) not confirmed", name, tally.unavailable);
    }
    if (log.isDebugEnabled()) {
      log.debug("[{}] {}", name, tally.summary(batch.size(), System.nanoTime() - startNanos));
    }
  }

  /** Refused credentials: an ERROR at the first batch of a burst, INFO once one gets through. */
  private void configuration(String configurationReason, BatchTally tally) {
    if (configurationReason != null) {
      if (configurationFailing.compareAndSet(false, true)) {
        // The reason says what and why; the relay's own outage WARNs keep repeating it.
        log.error(
            "[{}] {}; not logged again until a batch gets through", name, configurationReason);
      } else {
        log.debug("[{}] Kafka still refuses the transport: {}", name, configurationReason);
      }
    } else if (tally.delivered > 0 && configurationFailing.compareAndSet(true, false)) {
      log.info("[{}] Kafka accepts the transport's credentials again", name);
    }
  }

  /** Topics the transport may not write to, and topics that do not exist. */
  private void topicProblems(List<SendResult> results, Category[] categories, String[] topics) {
    TreeSet<String> missing = new TreeSet<>();
    TreeSet<String> security = new TreeSet<>();
    for (int i = 0; i < categories.length; i++) {
      if (categories[i] == Category.MISSING_TOPIC && topics[i] != null) {
        missing.add(topics[i]);
      } else if (categories[i] == Category.REJECT_SECURITY) {
        security.add(topics[i] == null ? "?" : topics[i]);
      }
    }
    if (!security.isEmpty()) {
      log.error(
          "[{}] Kafka refused the transport permission to write to topic(s) {}: a"
              + " configuration problem; their events wait, no attempt charged, until it is"
              + " granted. {}",
          name,
          security,
          lastReason(results, categories, Category.REJECT_SECURITY));
    }
    if (!missing.isEmpty()) {
      log.warn(
          "[{}] topic(s) {} do not exist and the broker does not create them; their events"
              + " wait, no attempt charged, until the topics are created",
          name,
          missing);
    }
  }

  /** The reason of the batch's last record of the category ("" if it has none), else null. */
  private static String lastReason(
      List<SendResult> results, Category[] categories, Category category) {
    String reason = null;
    for (int i = 0; i < categories.length; i++) {
      if (categories[i] == category) {
        reason = results.get(i).reason().orElse("");
      }
    }
    return reason;
  }
}
