package dev.outboxkit.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Repetitions of one measurement: median with min and max. */
final class Stats {
  private final List<Double> values = new ArrayList<>();

  void add(double value) {
    values.add(value);
  }

  double median() {
    List<Double> sorted = sorted();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  double min() {
    return sorted().get(0);
  }

  double max() {
    List<Double> sorted = sorted();
    return sorted.get(sorted.size() - 1);
  }

  private List<Double> sorted() {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted;
  }

  /** "41,230 (39,800–42,100)". */
  String format() {
    return String.format("%,.0f (%,.0f–%,.0f)", median(), min(), max());
  }
}
