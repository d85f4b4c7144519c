package dev.outboxkit.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxkit.testkit.TestDatabase;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A benchmark main ({@link RelayProcess}, {@link MemoryProcess}) in a JVM of its own, on this JVM's
 * class path. The child talks through lines on stdout ({@code READY}, {@code DONE n}, ...) and
 * listens on stdin; its stderr (logs, stack traces) goes to a temporary file shown when it fails. A
 * child that outlives its deadline is killed, so a hung child cannot hang the run.
 */
final class ChildJvm implements AutoCloseable {
  private static final long DEADLINE_MINUTES = 15;

  private final String name;
  private final Process process;
  private final BufferedReader out;
  private final Writer in;
  private final Path log;

  private ChildJvm(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
    this.out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
  }

  /**
   * Starts {@code main} with the database's coordinates as its first three arguments.
   *
   * @param jvmOptions e.g. {@code -Xmx64m}
   */
  static ChildJvm start(
      String name, Class<?> main, List<String> jvmOptions, TestDatabase db, List<String> args)
      throws IOException {
    Path log = Files.createTempFile("outboxkit-bench-" + name + "-", ".log");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(classPath());
    command.addAll(jvmOptions);
    command.add(main.getName());
    command.add(db.jdbcUrl());
    command.add(db.user() == null ? "" : db.user());
    command.add(db.password() == null ? "" : db.password());
    command.addAll(args);
    Process p = new ProcessBuilder(command).redirectError(log.toFile()).start();
    CompletableFuture.delayedExecutor(DEADLINE_MINUTES, TimeUnit.MINUTES)
        .execute(p::destroyForcibly);
    return new ChildJvm(name, p, log);
  }

  /**
   * The class path this code was loaded from. Under {@code mvn exec:java} that is the plugin's
   * class loader, not {@code java.class.path} (which names Maven's own launcher there).
   */
  private static String classPath() {
    if (ChildJvm.class.getClassLoader() instanceof URLClassLoader loader) {
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

  /** In a child: exits when the parent JVM is gone, so that a killed run leaves no orphan. */
  static void exitWithParent() {
    ProcessHandle.current()
        .parent()
        .ifPresent(parent -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(3)));
  }

  /** A small pool on the coordinates a child got as its first three arguments. */
  static HikariDataSource dataSource(String[] args) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[0]);
    // Empty means "as in the URL": an explicit empty user would override the URL's user.
    if (!args[1].isEmpty()) {
      config.setUsername(args[1]);
    }
    if (!args[2].isEmpty()) {
      config.setPassword(args[2]);
    }
    config.setMaximumPoolSize(2);
    config.setPoolName("child");
    return new HikariDataSource(config);
  }

  /** Sends one line to the child's stdin. */
  void send(String line) throws IOException {
    in.write(line + "\n");
    in.flush();
  }

  /**
   * Reads the child's next line.
   *
   * @throws IllegalStateException if the child ended its output
   */
  String nextLine() throws IOException {
    String line = out.readLine();
    if (line == null) {
      throw failure("ended its output");
    }
    return line;
  }

  /** Reads the child's lines until one starts with {@code word}; returns what follows it. */
  String expect(String word) throws IOException {
    String line;
    do {
      line = nextLine();
    } while (!line.equals(word) && !line.startsWith(word + " "));
    return line.substring(word.length()).trim();
  }

  /** Waits for the child to exit and returns its exit status. */
  int exitStatus() throws InterruptedException {
    return process.waitFor();
  }

  /** Closes the child's stdin, its signal to stop; waits for it and throws unless it succeeded. */
  void finish() throws IOException, InterruptedException {
    in.close();
    int status = exitStatus();
    if (status != 0) {
      throw failure("exited with status " + status);
    }
  }

  /** An exception naming the child and showing the end of its log. */
  IllegalStateException failure(String what) {
    String tail;
    try {
      tail = Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    tail = tail.length() > 3000 ? tail.substring(tail.length() - 3000) : tail;
    return new IllegalStateException("child JVM " + name + " " + what + "; its log:\n" + tail);
  }

  /** Kills the child if it still runs and deletes its log. */
  @Override
  public void close() throws IOException {
    process.destroyForcibly();
    Files.deleteIfExists(log);
  }
}
