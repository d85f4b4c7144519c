package dev.outboxkit.testkit;

import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Servers started by the test JVM itself when the environment names none: real PostgreSQL, MariaDB
 * and MySQL binaries from Maven Central, one per flavour per JVM (the caller caches them), each
 * stopped by a shutdown hook.
 */
final class Fallbacks {
  private static final Logger log = LoggerFactory.getLogger(Fallbacks.class);

  private Fallbacks() {}

  /**
   * Starts an embedded server of this flavour. Empty only where it cannot run at all (the binaries
   * on the class path are Linux x86-64 only); any other failure throws, so that broken tests are
   * not silently skipped.
   */
  static Optional<DatabaseServer> start(Flavor flavor) {
    if (flavor == Flavor.H2 || !runsHere(flavor.toString())) {
      return Optional.empty();
    }
    switch (flavor) {
      case POSTGRES:
        return Optional.of(EmbeddedPostgresServer.start());
      case MARIADB:
        return Optional.of(EmbeddedMariaDbServer.start());
      case MYSQL:
        return EmbeddedMySqlServer.start();
      default:
        throw new AssertionError(flavor);
    }
  }

  /** An embedded PostgreSQL with {@code wal_level=logical}, separate from the shared one. */
  static Optional<DatabaseServer> startLogicalPostgres() {
    if (!runsHere("PostgreSQL (wal_level=logical)")) {
      return Optional.empty();
    }
    return Optional.of(EmbeddedPostgresServer.startLogical());
  }

  private static boolean runsHere(String what) {
    String os = System.getProperty("os.name");
    String arch = System.getProperty("os.arch");
    if (!os.toLowerCase(Locale.ROOT).startsWith("linux")
        || !(arch.equals("amd64") || arch.equals("x86_64"))) {
      log.warn(
          "no embedded {} server for {} {}: the test kit ships Linux x86-64 binaries only",
          what,
          os,
          arch);
      return false;
    }
    return true;
  }
}
