package dev.outboxkit.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The test JVM's own slf4j-simple log (the build gives each test JVM a file of its own, {@code
 * target/test-<fork>.log}): what in-process relays logged, as evidence that they noticed a fault
 * (and said so) rather than only surviving it.
 */
final class TestLog {
  private static final Path FILE =
      Path.of(System.getProperty("org.slf4j.simpleLogger.logFile", "target/test.log"));

  private TestLog() {}

  /** The current end of the log, to read only what comes after it. */
  static long mark() {
    try {
      return Files.exists(FILE) ? Files.size(FILE) : 0;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Lines written since {@code mark} that contain every one of {@code needles}. */
  static List<String> linesSince(long mark, String... needles) {
    List<String> out = new ArrayList<>();
    try {
      byte[] all = Files.readAllBytes(FILE);
      String text =
          new String(
              all,
              (int) Math.min(mark, all.length),
              (int) Math.max(0, all.length - mark),
              StandardCharsets.UTF_8);
      for (String line : text.split("\n")) {
        if (Arrays.stream(needles).allMatch(line::contains)) {
          out.add(line);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
