package dev.outboxkit.benchmarks;

/** One benchmark scenario; runs once per database and adds its tables to the report. */
interface Scenario {
  /** Short name for {@code --only=name,...}. */
  String name();

  /** Measures the scenario on {@code run}'s database and adds result sections to its report. */
  void run(BenchRun run) throws Exception;
}
