package dev.outboxkit.faults;

import dev.outboxkit.testkit.Flavor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A database server of one test's own that dies the way a real one does, by {@code SIGKILL} with no
 * chance to flush or shut down, and comes back on the same data directory and port, so that it must
 * run crash recovery. The shared servers are never touched: the processes killed are the one whose
 * pid this server's own pid file names, and that process's children.
 *
 * <p>The data directory is {@code target/database-crash/<name>}, wiped when the server is first
 * started and kept afterwards for a post-mortem. The port is picked free once and kept for every
 * restart, so clients reconnect to the address they know.
 */
abstract class DatabaseCrashServer implements AutoCloseable {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration DEATH_TIMEOUT = Duration.ofSeconds(10);

  protected final Logger log = LoggerFactory.getLogger(getClass());

  /** The product. */
  final Flavor flavor;

  /** The user of {@link #adminUrl}; its password is empty. */
  final String user;

  protected final Path dir;

  /** The data directory, in {@link #dir}. */
  protected final Path data;

  /** The server's log, in {@link #dir}. */
  protected final Path logFile;

  private final String recoveryLine;
  protected final int port;

  /** A URL of an existing database in which the test may create its own. */
  final String adminUrl;

  /**
   * @param flavor the product
   * @param name the directory's name
   * @param user a user with an empty password who may create databases
   * @param adminUrl the URL of an existing database, with {@code %d} where the port goes
   * @param logName the log file's name
   * @param recoveryLine what the log says when the server starts with crash recovery
   */
  protected DatabaseCrashServer(
      Flavor flavor,
      String name,
      String user,
      String adminUrl,
      String logName,
      String recoveryLine) {
    this.flavor = flavor;
    this.user = user;
    dir = Path.of("target", "database-crash", name).toAbsolutePath();
    data = dir.resolve("data");
    logFile = dir.resolve(logName);
    this.recoveryLine = recoveryLine;
    port = freePort();
    this.adminUrl = String.format(Locale.ROOT, adminUrl, port);
  }

  /** What the tests learnt about one kill. */
  static final class Kill {
    /** The server's main process (the postmaster, mariadbd). */
    final long pid;

    /** Processes killed, the main one included. */
    final int processes;

    Kill(long pid, int processes) {
      this.pid = pid;
      this.processes = processes;
    }
  }

  /** The file whose first line is the running server's main pid. */
  protected abstract Path pidFile();

  /** First start only: binaries unpacked and a fresh data directory initialized in {@link #dir}. */
  protected abstract void prepare() throws IOException;

  /** Starts the server process on {@link #dir} and {@link #port}; it may not be ready yet. */
  protected abstract void launch() throws IOException;

  /** Whether the process last launched still runs; a start that died fails fast. */
  protected abstract boolean launchedAlive();

  /** Stops the server cleanly, if it runs. */
  protected abstract void stop() throws IOException;

  /** How often the server's log says it started over a data directory it had not shut down. */
  OptionalInt crashRecoveries() throws IOException {
    return OptionalInt.of(
        (int)
            Files.readAllLines(logFile, StandardCharsets.UTF_8).stream()
                .filter(line -> line.contains(recoveryLine))
                .count());
  }

  /** Recent server log, for a failure message. */
  private String logTail() {
    return tail(logFile, 30);
  }

  /** Prepares a fresh data directory and starts the server; returns once it takes connections. */
  final void start() {
    try {
      deleteTree(dir);
      Files.createDirectories(dir);
      prepare();
      launch();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + this, e);
    }
    awaitReady();
    log.info("{} started on 127.0.0.1:{}, data in {}", this, port, dir);
  }

  /**
   * Kills the server with {@code SIGKILL}: its main process and every child of it (PostgreSQL's
   * backends and auxiliary processes). The main process is stopped ({@code SIGSTOP}) first, so that
   * it cannot fork a new backend, or restart the ones it sees die, between the listing of its
   * children and its own death. Returns once every one of them is dead.
   */
  final Kill kill() {
    long pid = pidFromFile();
    ProcessHandle main =
        ProcessHandle.of(pid)
            .orElseThrow(() -> new IllegalStateException(this + ": no process " + pid));
    signal("STOP", pid);
    List<ProcessHandle> victims = new ArrayList<>(main.children().collect(Collectors.toList()));
    victims.forEach(ProcessHandle::destroyForcibly); // SIGKILL, like pkill -9 -P pid
    main.destroyForcibly(); // SIGKILL works on a stopped process
    victims.add(main);
    long deadline = System.nanoTime() + DEATH_TIMEOUT.toNanos();
    for (ProcessHandle victim : victims) {
      while (!dead(victim.pid())) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(this + ": process " + victim.pid() + " survived SIGKILL");
        }
        FaultTest.sleep(10);
      }
    }
    log.info("{}: SIGKILLed pid {} and {} children", this, pid, victims.size() - 1);
    return new Kill(pid, victims.size());
  }

  /**
   * Starts the killed server again on the same data directory and port; returns once it takes
   * connections, that is after its crash recovery.
   */
  final void restart() {
    try {
      launch();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot restart " + this, e);
    }
    awaitReady();
  }

  @Override
  public final void close() {
    try {
      stop();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot stop " + this, e);
    }
  }

  private void awaitReady() {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    SQLException last = null;
    while (System.nanoTime() - deadline < 0) {
      if (!launchedAlive()) {
        throw new IllegalStateException(this + " died while starting; its log ends:\n" + logTail());
      }
      try (Connection c = DriverManager.getConnection(adminUrl, user, "");
          Statement s = c.createStatement()) {
        s.execute("SELECT 1");
        return;
      } catch (SQLException e) {
        last = e;
      }
      FaultTest.sleep(50);
    }
    throw new IllegalStateException(
        this + " not ready after " + READY_TIMEOUT + "; its log ends:\n" + logTail(), last);
  }

  private long pidFromFile() {
    try {
      return Long.parseLong(Files.readAllLines(pidFile(), StandardCharsets.US_ASCII).get(0).trim());
    } catch (IOException e) {
      throw new UncheckedIOException(this + ": no pid file " + pidFile(), e);
    }
  }

  /**
   * Gone, or a zombie: dead, holding no memory, files or ports, merely not yet reaped by its parent
   * (init, for PostgreSQL's orphaned backends).
   */
  private static boolean dead(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      char state = stat.charAt(stat.lastIndexOf(')') + 2);
      return state == 'Z' || state == 'X';
    } catch (NoSuchFileException e) {
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Sends a signal Java has no method for. */
  protected static void signal(String name, long pid) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + name + " " + pid + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** The last {@code lines} lines of a log file, or a note that there is none. */
  protected static String tail(Path file, int lines) {
    try {
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log " + file + ": " + e + ")";
    }
  }

  protected static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
        Files.delete(p);
      }
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "crashable %s on port %d", flavor, port);
  }
}
