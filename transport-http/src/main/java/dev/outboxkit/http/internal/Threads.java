package dev.outboxkit.http.internal;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where the transport's threads come from: the user's factory, or daemon threads of its own; and
 * the wait at close for every one of them to end.
 */
public final class Threads {
  private final ThreadFactory userFactory;
  private final String prefix;
  private final AtomicInteger counter = new AtomicInteger();
  private final Set<Thread> started = ConcurrentHashMap.newKeySet();

  /**
   * @param userFactory the factory given to the builder, or null
   * @param prefix the name stem of the transport's own threads, e.g. {@code outboxkit-name-}
   */
  public Threads(ThreadFactory userFactory, String prefix) {
    this.userFactory = userFactory;
    this.prefix = prefix;
  }

  /**
   * @param role in the names of the transport's own threads
   * @return a factory that uses the user's when there is one (refusing loudly when it gives no
   *     thread) and otherwise makes daemon threads named {@code <prefix><role>-<n>}
   */
  public ThreadFactory factory(String role) {
    return r -> {
      Thread t;
      if (userFactory == null) {
        t = new Thread(r, prefix + role + "-" + counter.incrementAndGet());
        t.setDaemon(true);
      } else {
        t = userFactory.newThread(r);
        if (t == null) {
          throw new RejectedExecutionException(
              "the webhook transport's threadFactory returned no thread");
        }
      }
      started.removeIf(old -> old.getState() == Thread.State.TERMINATED);
      started.add(t);
      return t;
    };
  }

  /**
   * Waits, up to the timeout in all, until every thread made here has ended: a shut-down pool's
   * worker still runs for a moment after the pool says it terminated, and a container counts
   * threads on undeploy. A request still in flight ends within its requestTimeout.
   */
  public void awaitEnded(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      for (Thread t : started) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        if (t != Thread.currentThread()) {
          TimeUnit.NANOSECONDS.timedJoin(t, left);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
