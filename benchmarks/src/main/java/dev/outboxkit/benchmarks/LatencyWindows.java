package dev.outboxkit.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Commit-to-ack latencies of one run cut into equal windows in commit order (the writer offers a
 * fixed rate, so equal counts are equal spans of offered time), after a discarded warm-up: p50, p99
 * and max per window, each reported as the median of the windows with min–max.
 */
final class LatencyWindows {
  /** Windows per run: the repetitions of each figure. */
  static final int COUNT = 3;

  final Stats p50 = new Stats();
  final Stats p99 = new Stats();
  final Stats max = new Stats();
  int events;
  String batches = "";

  private LatencyWindows() {}

  /**
   * @param commits commit instant per event id (epoch micros), in commit order
   * @param acks ack instant per event id (epoch micros); has every committed id
   * @param warmUp events discarded first, as a share of the offered events
   */
  static LatencyWindows of(Map<UUID, Long> commits, Map<UUID, Long> acks, double warmUp) {
    List<Long> latencies = new ArrayList<>(commits.size());
    for (Map.Entry<UUID, Long> c : commits.entrySet()) {
      latencies.add(acks.get(c.getKey()) - c.getValue());
    }
    int from = (int) (latencies.size() * warmUp);
    int width = (latencies.size() - from) / COUNT;
    LatencyWindows result = new LatencyWindows();
    for (int i = 0; i < COUNT; i++) {
      List<Long> w = new ArrayList<>(latencies.subList(from + i * width, from + (i + 1) * width));
      Collections.sort(w);
      result.p50.add(percentile(w, 0.50) / 1000.0);
      result.p99.add(percentile(w, 0.99) / 1000.0);
      result.max.add(w.get(w.size() - 1) / 1000.0);
      result.events += w.size();
    }
    return result;
  }

  /** Nearest-rank percentile of sorted values. */
  private static long percentile(List<Long> sorted, double p) {
    int rank = (int) Math.ceil(p * sorted.size());
    return sorted.get(Math.max(0, rank - 1));
  }

  /** "1.23 (1.10–1.40)" in milliseconds. */
  static String ms(Stats s) {
    return String.format("%.2f (%.2f–%.2f)", s.median(), s.min(), s.max());
  }
}
