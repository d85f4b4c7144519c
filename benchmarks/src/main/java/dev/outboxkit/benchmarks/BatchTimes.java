package dev.outboxkit.benchmarks;

import dev.outboxkit.jdbc.RelayListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Where a relay's time goes, batch by batch (batches that found events only): the claim
 * transaction, the transport's send (hand-off to the send thread included) and the acknowledgement
 * transaction, to explain a throughput or latency figure.
 */
final class BatchTimes implements RelayListener {
  private final List<Long> claimMicros = Collections.synchronizedList(new ArrayList<>());
  private final List<Long> sendMicros = Collections.synchronizedList(new ArrayList<>());
  private final List<Long> ackMicros = Collections.synchronizedList(new ArrayList<>());
  private final List<Integer> sizes = Collections.synchronizedList(new ArrayList<>());

  @Override
  public void batchClaimed(int size, Duration claimTime) {
    claimMicros.add(claimTime.toNanos() / 1_000);
  }

  @Override
  public void batchCompleted(int size, Duration sendTime, Duration ackTime) {
    sendMicros.add(sendTime.toNanos() / 1_000);
    ackMicros.add(ackTime.toNanos() / 1_000);
    sizes.add(size);
  }

  /** Medians in ms and the mean batch: "0.61, 0.05, 0.48; 1.3". */
  String summary() {
    double events = 0;
    synchronized (sizes) {
      for (int s : sizes) {
        events += s;
      }
    }
    return String.format(
        "%.2f, %.2f, %.2f; %.1f",
        median(claimMicros) / 1000.0,
        median(sendMicros) / 1000.0,
        median(ackMicros) / 1000.0,
        events / Math.max(1, sizes.size()));
  }

  private static long median(List<Long> values) {
    List<Long> sorted;
    synchronized (values) {
      sorted = new ArrayList<>(values);
    }
    if (sorted.isEmpty()) {
      return 0;
    }
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }
}
