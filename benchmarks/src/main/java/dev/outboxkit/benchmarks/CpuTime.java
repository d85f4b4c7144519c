package dev.outboxkit.benchmarks;

import com.sun.management.OperatingSystemMXBean;
import dev.outboxkit.testkit.Flavor;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Set;

/**
 * CPU time, to tell what an event costs the relay and what it costs the database, whatever else
 * shares the machine's cores: this JVM's own ({@code getProcessCpuTime}), and the database
 * server's, summed from {@code /proc} over its processes (PostgreSQL's backends, and what its
 * postmaster's exited children used; MariaDB's or MySQL's one process).
 */
final class CpuTime {
  /** Linux's clock ticks per second as {@code /proc} counts them ({@code getconf CLK_TCK}). */
  private static final long TICKS_PER_SECOND = 100;

  private CpuTime() {}

  /** User and system CPU time of this JVM so far, in nanoseconds. */
  static long ofThisProcess() {
    return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /**
   * User and system CPU time the flavour's server processes on this machine have used so far, in
   * nanoseconds; 0 where {@code /proc} cannot tell (not Linux, or a server on another machine).
   */
  static long ofDatabaseServer(Flavor flavor) throws IOException {
    Set<String> names =
        flavor == Flavor.POSTGRES ? Set.of("postgres") : Set.of("mariadbd", "mysqld");
    Path proc = Path.of("/proc");
    if (!Files.isDirectory(proc)) {
      return 0;
    }
    long ticks = 0;
    try (DirectoryStream<Path> pids = Files.newDirectoryStream(proc, "[0-9]*")) {
      for (Path pid : pids) {
        String stat;
        try {
          stat = Files.readString(pid.resolve("stat"), StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
          continue; // ended meanwhile
        }
        // pid (comm) state ppid ...: comm may hold blanks, so fields count from its ')'.
        int close = stat.lastIndexOf(')');
        String comm = stat.substring(stat.indexOf('(') + 1, close);
        if (!names.contains(comm)) {
          continue;
        }
        String[] f = stat.substring(close + 2).split(" ");
        // After the state (f[0]): utime f[11], stime f[12], cutime f[13], cstime f[14].
        for (int i = 11; i <= 14; i++) {
          ticks += Long.parseLong(f[i]);
        }
      }
    }
    return ticks * (1_000_000_000L / TICKS_PER_SECOND);
  }
}
