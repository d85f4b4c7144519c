package dev.outboxkit.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A child JVM running one of the suite's mains ({@link CommitCrashChild}, {@link RelayChild}) on
 * the test class path, so it can be killed for real: {@link #kill()} is {@link
 * Process#destroyForcibly()}, a SIGKILL that runs no shutdown hook and flushes nothing.
 *
 * <p>The child's stdout carries its protocol lines ({@code <epoch millis> <WORD> ...}, see {@link
 * Child#emit}) and goes to {@code target/children/<name>.out}; its stderr (slf4j-simple logs, stack
 * traces) to {@code <name>.log}. Nothing goes to the Surefire fork's own stdout. The parent reads
 * the protocol file as it grows; only complete lines count, since a SIGKILL may cut the last one.
 *
 * <p>The child gets the fork's {@code java.class.path} as {@code -cp}. Surefire (3.5) starts its
 * fork from a manifest-only booter jar but sets {@code java.class.path} to the real test class path
 * (logged once per run); were it the booter jar, {@code -cp} would honour its manifest {@code
 * Class-Path} just the same.
 */
final class ChildJvm implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ChildJvm.class);
  private static final Path DIR = Path.of("target", "children");
  private static final AtomicBoolean CLASS_PATH_LOGGED = new AtomicBoolean();

  private final String name;
  private final Process process;
  private final Path out;
  private final Path stderr;
  private final List<String> lines = new ArrayList<>();
  private final StringBuilder partial = new StringBuilder();
  private long position;
  private int cursor;

  private ChildJvm(String name, Process process, Path out, Path stderr) {
    this.name = name;
    this.process = process;
    this.out = out;
    this.stderr = stderr;
  }

  /**
   * Starts {@code main} in a new JVM.
   *
   * @param name file name stem for its output; unique within the run
   */
  static ChildJvm start(String name, Class<?> main, List<String> args) {
    try {
      String classPath = System.getProperty("java.class.path");
      if (CLASS_PATH_LOGGED.compareAndSet(false, true)) {
        log.info(
            "child JVMs run with -cp of {} entries, the first {}",
            classPath.split(java.io.File.pathSeparator).length,
            classPath.split(java.io.File.pathSeparator)[0]);
      }
      Files.createDirectories(DIR);
      Path out = DIR.resolve(name + ".out");
      Path stderr = DIR.resolve(name + ".log");
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.add("-cp");
      command.add(classPath);
      command.add("-Xmx256m");
      // Quick to start and light on a small, shared machine: these JVMs live for seconds.
      command.add("-XX:+UseSerialGC");
      command.add("-XX:TieredStopAtLevel=1");
      command.add("-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"));
      command.add("-Duser.timezone=" + System.getProperty("user.timezone"));
      command.add("-Dorg.slf4j.simpleLogger.logFile=System.err");
      command.add(main.getName());
      command.addAll(args);
      // stdin stays a pipe (the default): the child's watchdog exits when it closes, i.e. when
      // this JVM dies without killing it. Inheriting it would hand the child Surefire's own
      // command channel.
      Process p =
          new ProcessBuilder(command)
              .redirectOutput(out.toFile())
              .redirectError(stderr.toFile())
              .start();
      return new ChildJvm(name, p, out, stderr);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start child JVM " + name, e);
    }
  }

  String name() {
    return name;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Waits for the next protocol line (after the last one this method returned) that matches.
   *
   * @return the line, or empty if the timeout passed first
   * @throws AssertionError if the child died before such a line appeared
   */
  Optional<String> awaitLine(Predicate<String> matching, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      refresh();
      while (cursor < lines.size()) {
        String line = lines.get(cursor++);
        if (matching.test(line)) {
          return Optional.of(line);
        }
      }
      if (!process.isAlive()) {
        refresh();
        if (cursor < lines.size()) {
          continue;
        }
        throw new AssertionError(
            "child " + name + " exited with " + process.exitValue() + " ; log tail:\n" + tail());
      }
      if (System.nanoTime() - deadline > 0) {
        return Optional.empty();
      }
      sleep(10);
    }
  }

  /** Like {@link #awaitLine}, but a timeout fails the test. */
  String expectLine(Predicate<String> matching, Duration timeout, String what) {
    return awaitLine(matching, timeout)
        .orElseThrow(
            () ->
                new AssertionError(
                    "child "
                        + name
                        + " printed no "
                        + what
                        + " within "
                        + timeout
                        + "; log:\n"
                        + tail()));
  }

  /** Every complete protocol line so far. */
  List<String> lines() {
    refresh();
    return new ArrayList<>(lines);
  }

  /** SIGKILL, then waits for the process to be gone. */
  void kill() {
    process.destroyForcibly();
    waitGone(Duration.ofSeconds(30));
    refresh();
  }

  /** SIGTERM (shutdown hooks run), then SIGKILL if it is still there after the grace period. */
  void stop(Duration grace) {
    process.destroy();
    try {
      if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    waitGone(Duration.ofSeconds(30));
    refresh();
  }

  /** Kills the child if it still runs; safe to call in every finally block. */
  @Override
  public void close() {
    if (process.isAlive()) {
      kill();
    }
  }

  /** The end of the child's stderr log, for failure messages. */
  String tail() {
    try {
      String text = Files.exists(stderr) ? Files.readString(stderr, StandardCharsets.UTF_8) : "";
      return text.length() > 4000 ? text.substring(text.length() - 4000) : text;
    } catch (IOException e) {
      return "(cannot read " + stderr + ": " + e + ")";
    }
  }

  private void waitGone(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError("child " + name + " did not die within " + timeout);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private synchronized void refresh() {
    try (FileChannel ch = FileChannel.open(out, StandardOpenOption.READ)) {
      long size = ch.size();
      if (size <= position) {
        return;
      }
      ByteBuffer buf = ByteBuffer.allocate((int) Math.min(size - position, 64 << 20));
      ch.read(buf, position);
      buf.flip();
      position += buf.remaining();
      partial.append(StandardCharsets.UTF_8.decode(buf));
      int start = 0;
      int nl;
      while ((nl = partial.indexOf("\n", start)) >= 0) {
        lines.add(partial.substring(start, nl));
        start = nl + 1;
      }
      partial.delete(0, start);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  @Override
  public String toString() {
    return "child " + name;
  }
}
