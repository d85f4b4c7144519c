package dev.outboxkit.testkit;

import java.io.File;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
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
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A main of the caller's in a JVM of its own, on the caller's class path, so that it can be killed
 * for real ({@link #kill()} is {@link Process#destroyForcibly()}, a SIGKILL that runs no shutdown
 * hook and flushes nothing) or measured apart from the parent.
 *
 * <p>The child talks through lines on its stdout, which goes to {@code target/children/<name>.out};
 * its stderr (slf4j-simple logs, stack traces) goes to {@code <name>.log} beside it. Nothing goes
 * to the parent's own stdout, and both files stay after the run for whoever investigates a failure.
 * The parent reads the stdout file as it grows; only complete lines count, since a SIGKILL may cut
 * the last one. The child's stdin is a pipe from the parent: {@link #send} writes to it, and a
 * child that reads it to its end stops when the parent closes it ({@link #finish()}) or dies.
 *
 * <p>The class path: under Surefire, {@code java.class.path} is the real test class path (Surefire
 * 3.5 starts its fork from a manifest-only booter jar but sets the property to the real path; were
 * it the booter jar, {@code -cp} would honour its manifest {@code Class-Path} just the same). Under
 * {@code mvn exec:java} the main's class loader is the plugin's {@link URLClassLoader} and {@code
 * java.class.path} names Maven's own launcher, so that loader's URLs are used instead.
 */
public final class ChildJvm implements AutoCloseable {
  private static final Path DIR = Path.of("target", "children");
  private static final long POLL_MILLIS = 10;

  private final String name;
  private final Process process;
  private final Path out;
  private final Path stderr;
  private final Writer stdin;
  private final List<String> lines = new ArrayList<>();
  private final StringBuilder partial = new StringBuilder();
  private long position;
  private int cursor;

  private ChildJvm(String name, Process process, Path out, Path stderr) {
    this.name = name;
    this.process = process;
    this.out = out;
    this.stderr = stderr;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
  }

  /**
   * Starts {@code main} in a new JVM with this JVM's time zone and {@code java.io.tmpdir}.
   *
   * @param name file name stem of its output under {@code target/children}; unique within the run
   * @param jvmOptions e.g. {@code -Xmx256m}
   * @param args the main's arguments
   * @throws UncheckedIOException if the process cannot be started
   */
  public static ChildJvm start(
      String name, Class<?> main, List<String> jvmOptions, List<String> args) {
    try {
      Files.createDirectories(DIR);
      Path out = DIR.resolve(name + ".out");
      Path stderr = DIR.resolve(name + ".log");
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.add("-cp");
      command.add(classPath(main));
      command.addAll(jvmOptions);
      command.add("-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"));
      command.add("-Duser.timezone=" + System.getProperty("user.timezone"));
      command.add("-Dorg.slf4j.simpleLogger.logFile=System.err");
      command.add(main.getName());
      command.addAll(args);
      // stdin stays a pipe (the default): inheriting it would hand the child Surefire's own
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

  private static String classPath(Class<?> main) {
    if (main.getClassLoader() instanceof URLClassLoader loader) {
      StringJoiner path = new StringJoiner(File.pathSeparator);
      for (URL url : loader.getURLs()) {
        try {
          path.add(Path.of(url.toURI()).toString());
        } catch (URISyntaxException e) {
          throw new IllegalStateException("class path entry " + url, e);
        }
      }
      return path.toString();
    }
    return System.getProperty("java.class.path");
  }

  /**
   * Kills the child once {@code limit} has passed, so that a hung child cannot hang the run.
   *
   * @return this child
   */
  public ChildJvm killAfter(Duration limit) {
    CompletableFuture.delayedExecutor(limit.toMillis(), TimeUnit.MILLISECONDS)
        .execute(process::destroyForcibly);
    return this;
  }

  /** The name it was started with. */
  public String name() {
    return name;
  }

  /** True while the process runs. */
  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Waits for the next line (after the last one this child's reading methods returned) that
   * matches.
   *
   * @return the line, or empty if the timeout passed first
   * @throws AssertionError if the child ended before such a line appeared
   */
  public Optional<String> awaitLine(Predicate<String> matching, Duration timeout) {
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
        throw failure("exited with " + process.exitValue() + " before the line awaited");
      }
      if (System.nanoTime() - deadline > 0) {
        return Optional.empty();
      }
      sleep(POLL_MILLIS);
    }
  }

  /**
   * Like {@link #awaitLine}, but a timeout fails too.
   *
   * @param what what the line is, for the failure message
   * @throws AssertionError if no such line appeared within the timeout
   */
  public String expectLine(Predicate<String> matching, Duration timeout, String what) {
    return awaitLine(matching, timeout)
        .orElseThrow(() -> failure("printed no " + what + " within " + timeout));
  }

  /**
   * The next line, however long the child takes (see {@link #killAfter}).
   *
   * @throws AssertionError if the child ended its output
   */
  public String nextLine() {
    return awaitLine(line -> true, Duration.ofDays(365)).orElseThrow();
  }

  /**
   * Reads lines until one is {@code word} or starts with {@code word} and a space.
   *
   * @return what follows the word, trimmed
   */
  public String expect(String word) {
    String line;
    do {
      line = nextLine();
    } while (!line.equals(word) && !line.startsWith(word + " "));
    return line.substring(word.length()).trim();
  }

  /** Every complete line so far, including those already read. */
  public List<String> lines() {
    refresh();
    return new ArrayList<>(lines);
  }

  /** Sends one line to the child's stdin. */
  public void send(String line) throws IOException {
    stdin.write(line + "\n");
    stdin.flush();
  }

  /** Waits for the child to exit and returns its exit status. */
  public int exitStatus() throws InterruptedException {
    return process.waitFor();
  }

  /**
   * Closes the child's stdin, its signal to stop, and waits for it to exit.
   *
   * @throws AssertionError unless it exited with status 0
   */
  public void finish() throws IOException, InterruptedException {
    stdin.close();
    int status = exitStatus();
    if (status != 0) {
      throw failure("exited with status " + status);
    }
  }

  /** SIGKILL, then waits for the process to be gone. */
  public void kill() {
    process.destroyForcibly();
    waitGone(Duration.ofSeconds(30));
    refresh();
  }

  /** SIGTERM (shutdown hooks run), then SIGKILL if it is still there after the grace period. */
  public void stop(Duration grace) {
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
    try {
      stdin.close();
    } catch (IOException e) {
      // the pipe broke with the child; nothing is left to release
    }
  }

  /** An error naming the child and showing the end of its stderr log. */
  public AssertionError failure(String what) {
    return new AssertionError("child JVM " + name + " " + what + "; its log ends:\n" + tail());
  }

  /** The end of the child's stderr log. */
  public String tail() {
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
