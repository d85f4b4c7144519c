package dev.outboxkit.testkit;

import java.util.Optional;

/** Servers started by the test JVM itself when the environment names none. */
final class Fallbacks {
  private Fallbacks() {}

  static Optional<DatabaseServer> start(Flavor flavor) {
    return Optional.empty();
  }
}
