package dev.outboxkit.internal;

import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A batch's results counted by status, with the first rejection named: what a transport logs about
 * each batch it sent. Never holds a payload.
 */
public final class BatchTally {
  /** Results that were {@link SendResult.Status#DELIVERED}. */
  public final int delivered;

  /** Results that were {@link SendResult.Status#RETRY}. */
  public final int retry;

  /** Results that were {@link SendResult.Status#REJECT}. */
  public final int reject;

  /** Results that were {@link SendResult.Status#UNAVAILABLE}. */
  public final int unavailable;

  /** {@code event <id>: <reason>} of the first rejected event, or null. */
  public final String firstReject;

  private BatchTally(int[] counts, String firstReject) {
    this.delivered = counts[SendResult.Status.DELIVERED.ordinal()];
    this.retry = counts[SendResult.Status.RETRY.ordinal()];
    this.reject = counts[SendResult.Status.REJECT.ordinal()];
    this.unavailable = counts[SendResult.Status.UNAVAILABLE.ordinal()];
    this.firstReject = firstReject;
  }

  /**
   * Counts the results of a batch.
   *
   * @param batch the messages sent
   * @param results their results, one per message, in order
   */
  public static BatchTally of(List<OutboxMessage> batch, List<SendResult> results) {
    int[] counts = new int[SendResult.Status.values().length];
    String firstReject = null;
    for (int i = 0; i < results.size(); i++) {
      SendResult r = results.get(i);
      counts[r.status().ordinal()]++;
      if (firstReject == null && r.status() == SendResult.Status.REJECT) {
        firstReject = "event " + batch.get(i).event().id() + ": " + r.reason().orElse("");
      }
    }
    return new BatchTally(counts, firstReject);
  }

  /**
   * The tally as the transports' DEBUG line about a batch gives it: {@code batch of 3: 2 delivered,
   * 0 retry, 1 reject, 0 unavailable in 12 ms}.
   *
   * @param size how many messages the batch had
   * @param elapsedNanos how long sending it took
   * @return the line, without the transport's name
   */
  public String summary(int size, long elapsedNanos) {
    return "batch of "
        + size
        + ": "
        + delivered
        + " delivered, "
        + retry
        + " retry, "
        + reject
        + " reject, "
        + unavailable
        + " unavailable in "
        + TimeUnit.NANOSECONDS.toMillis(elapsedNanos)
        + " ms";
  }
}
