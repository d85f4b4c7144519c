package dev.outboxkit.benchmarks;

import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestDatabase;

/**
 * What one scenario gets for one database: a fresh database with the outbox table created, the run
 * mode and the report to add its tables to.
 *
 * @param flavor the database product
 * @param db a fresh database holding an empty {@code outbox_event} table
 * @param dialect the detected dialect
 * @param quick whether this is the short {@code --quick} run (sizes shrink; figures are rougher)
 * @param reps measured repetitions per figure (a discarded warm-up round comes first)
 * @param events the standard event count for drain-type scenarios
 * @param report where the scenario's result tables go
 */
record BenchRun(
    Flavor flavor,
    TestDatabase db,
    Dialect dialect,
    boolean quick,
    int reps,
    int events,
    Report report) {}
