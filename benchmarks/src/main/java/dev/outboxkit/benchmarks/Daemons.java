package dev.outboxkit.benchmarks;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Daemon threads with readable names, so a forgotten pool never keeps the harness alive. */
final class Daemons {
  private Daemons() {}

  static ThreadFactory named(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "bench-" + prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
