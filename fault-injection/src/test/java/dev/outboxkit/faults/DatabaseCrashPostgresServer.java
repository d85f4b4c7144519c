package dev.outboxkit.faults;

import dev.outboxkit.testkit.Flavor;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.util.LinuxUtils;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A crashable PostgreSQL 14 (zonky's binaries, as the test kit's embedded server). Zonky unpacks
 * the binaries and runs {@code initdb} on the first start, then stops its server cleanly; from then
 * on the postmaster is a child of the test JVM, started directly, so that once killed it is reaped
 * at once and its stale {@code postmaster.pid} names no living (or zombie) process: PostgreSQL
 * refuses to start over a lock file whose pid still exists.
 *
 * <p>As root the postmaster runs under {@code unshare -U}, as zonky runs it: PostgreSQL refuses to
 * run as root, and in a new user namespace it does not look like root. Its log (crash recovery
 * included) goes to {@code postgres.log} beside the data directory.
 */
final class DatabaseCrashPostgresServer extends DatabaseCrashServer {
  private Path postgres;
  private Process process;

  DatabaseCrashPostgresServer() {
    super(
        Flavor.POSTGRES,
        "postgres",
        "postgres",
        "jdbc:postgresql://127.0.0.1:%d/postgres",
        "postgres.log",
        "database system was not properly shut down; automatic recovery in progress");
    Runtime.getRuntime().addShutdownHook(new Thread(this::kill9, "crashable-postgres-stop"));
  }

  @Override
  protected Path pidFile() {
    return data.resolve("postmaster.pid");
  }

  @Override
  protected void prepare() throws IOException {
    // Surefire points java.io.tmpdir at target/tmp but does not create it; zonky unpacks there.
    Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
    EmbeddedPostgres zonky =
        EmbeddedPostgres.builder()
            .setDataDirectory(data)
            .setCleanDataDirectory(false)
            .setPort(port)
            .setServerConfig("listen_addresses", "127.0.0.1")
            .setRegisterShutdownHook(false)
            .start();
    try {
      long pid = Long.parseLong(Files.readAllLines(pidFile()).get(0).trim());
      postgres =
          Path.of(
              ProcessHandle.of(pid)
                  .flatMap(p -> p.info().command())
                  .orElseThrow(() -> new IllegalStateException("cannot see zonky's postmaster")));
    } finally {
      zonky.close(); // pg_ctl stop -m fast; the data directory stays
    }
  }

  @Override
  protected void launch() throws IOException {
    if (process != null) {
      awaitExit(process); // reaped: its pid must not look alive to the new postmaster
    }
    List<String> command = new ArrayList<>();
    if (LinuxUtils.isUnshareAvailable()) {
      command.add("unshare");
      command.add("-U");
    }
    command.add(postgres.toString());
    command.addAll(
        List.of(
            "-D",
            data.toString(),
            "-p",
            Integer.toString(port),
            "-c",
            "listen_addresses=127.0.0.1",
            // TCP only: no socket file in /tmp to collide with another server's.
            "-c",
            "unix_socket_directories=",
            // Zonky's own start turns these off for speed. Here the application's commits must be
            // as durable as on a production server, or the crash would lose appended events
            // (only the relay's bookkeeping commits asynchronously, by its own choice). A SIGKILL
            // leaves the kernel's page cache intact, so fsync matters only for power loss, but
            // it stays on as in production.
            "-c",
            "synchronous_commit=on",
            "-c",
            "fsync=on"));
    process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
            .start();
  }

  @Override
  protected boolean launchedAlive() {
    return process != null && process.isAlive();
  }

  @Override
  protected void stop() throws IOException {
    if (process == null || !process.isAlive()) {
      return;
    }
    signal("INT", process.pid()); // fast shutdown: end sessions, checkpoint, exit
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        log.warn("{} ignored SIGINT for 30 s; killing it", this);
        kill9();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      kill9();
    }
  }

  /** Last resort (a test JVM that exits with the server up): no orphaned server outlives it. */
  private void kill9() {
    Process p = process;
    if (p != null && p.isAlive()) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
  }

  private static void awaitExit(Process p) throws IOException {
    try {
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        throw new IOException("postmaster " + p.pid() + " still runs after SIGKILL");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }
}
