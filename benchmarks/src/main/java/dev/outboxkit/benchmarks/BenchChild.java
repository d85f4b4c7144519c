package dev.outboxkit.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxkit.testkit.ChildJvm;
import dev.outboxkit.testkit.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Both sides of a benchmark main in a JVM of its own ({@link RelayProcess}, {@link MemoryProcess},
 * {@link LatencyWriterChild}): the parent starts it with the database's coordinates as its first
 * three arguments, the child builds its pool from them and exits with its parent.
 */
final class BenchChild {
  /** A child that outlives this is killed, so that a hung child cannot hang the run. */
  private static final Duration DEADLINE = Duration.ofMinutes(15);

  private BenchChild() {}

  /**
   * Starts {@code main} with the database's coordinates before {@code args}.
   *
   * @param jvmOptions e.g. {@code -Xmx64m}
   */
  static ChildJvm start(
      String name, Class<?> main, List<String> jvmOptions, TestDatabase db, List<String> args) {
    List<String> all = new ArrayList<>();
    all.add(db.jdbcUrl());
    all.add(db.user() == null ? "" : db.user());
    all.add(db.password() == null ? "" : db.password());
    all.addAll(args);
    return ChildJvm.start("bench-" + name, main, jvmOptions, all).killAfter(DEADLINE);
  }

  /** In a child: exits when the parent JVM is gone, so that a killed run leaves no orphan. */
  static void exitWithParent() {
    ProcessHandle.current()
        .parent()
        .ifPresent(parent -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(3)));
  }

  /** In a child: a small pool on the coordinates it got as its first three arguments. */
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
}
