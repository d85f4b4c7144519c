package dev.outboxkit.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One scenario's outcome, appended as a table row to {@code target/fault-results.txt} (and logged):
 * events appended, distinct events delivered, extra copies delivered, DEAD, lost, run time.
 */
final class FaultReport {
  private static final Logger log = LoggerFactory.getLogger(FaultReport.class);
  private static final Path FILE = Path.of("target", "fault-results.txt");

  final String scenario;
  final String database;
  final long appended;
  final long delivered;
  final long duplicates;
  final long dead;
  final long lost;
  final double seconds;
  final String notes;

  FaultReport(
      String scenario,
      String database,
      long appended,
      long delivered,
      long duplicates,
      long dead,
      long lost,
      double seconds,
      String notes) {
    this.scenario = scenario;
    this.database = database;
    this.appended = appended;
    this.delivered = delivered;
    this.duplicates = duplicates;
    this.dead = dead;
    this.lost = lost;
    this.seconds = seconds;
    this.notes = notes;
  }

  /** Appends the row (and a header first if the file is new). */
  void write() {
    String row =
        String.format(
            Locale.ROOT,
            "| %-24s | %-8s | %8d | %9d | %10d | %5d | %4d | %7.1f | %s |%n",
            scenario,
            database,
            appended,
            delivered,
            duplicates,
            dead,
            lost,
            seconds,
            notes);
    synchronized (FaultReport.class) {
      try {
        Files.createDirectories(FILE.getParent());
        if (!Files.exists(FILE)) {
          Files.writeString(
              FILE,
              String.format(
                  Locale.ROOT,
                  "| %-24s | %-8s | %8s | %9s | %10s | %5s | %4s | %7s | %s |%n",
                  "scenario",
                  "database",
                  "appended",
                  "delivered",
                  "duplicates",
                  "DEAD",
                  "lost",
                  "seconds",
                  "notes"),
              StandardCharsets.UTF_8);
        }
        Files.writeString(FILE, row, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    log.info("fault result: {}", row.strip());
  }
}
