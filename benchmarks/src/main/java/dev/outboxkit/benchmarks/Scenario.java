package dev.outboxkit.benchmarks;

/**
 * One benchmark scenario; runs once per database and adds its tables to the report. Closed once at
 * the end of the run, whatever happened, to stop what it shares between databases.
 */
interface Scenario extends AutoCloseable {
  /** Short name for {@code --only=name,...}. */
  String name();

  /** Measures the scenario on {@code run}'s database and adds result sections to its report. */
  void run(BenchRun run) throws Exception;

  @Override
  default void close() {}
}
