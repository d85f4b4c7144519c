package dev.outboxkit.internal;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where every thread of one OutboxKit component (a relay, a transport) comes from: the user's
 * factory when one is configured (a Java EE container's {@code ManagedThreadFactory}, say),
 * otherwise daemon threads of the component's own, named {@code <prefix><role>-<n>} for thread
 * dumps; and the wait at close until every one of them has ended, since a container counts threads
 * on undeploy. The one place OutboxKit makes a thread.
 */
public final class OwnedThreads {
  private final ThreadFactory userFactory;
  private final String prefix;
  private final String owner;
  private final AtomicInteger counter = new AtomicInteger();
  private final Set<Thread> started = ConcurrentHashMap.newKeySet();

  /**
   * @param userFactory the factory given to the component's builder, or null
   * @param prefix the name stem of the component's own threads, e.g. {@code outboxkit-orders-}
   * @param owner the component, for the error when the user's factory gives no thread, e.g. {@code
   *     "the relay"}
   */
  public OwnedThreads(ThreadFactory userFactory, String prefix, String owner) {
    this.userFactory = userFactory;
    this.prefix = prefix;
    this.owner = owner;
  }

  /**
   * A new, unstarted thread.
   *
   * @param role what the thread does, in the name of the component's own threads
   * @throws RejectedExecutionException if the user's factory returned no thread
   */
  public Thread newThread(Runnable task, String role) {
    Thread t;
    if (userFactory == null) {
      t = new Thread(task, prefix + role + "-" + counter.incrementAndGet());
      t.setDaemon(true);
    } else {
      t = userFactory.newThread(task);
      if (t == null) {
        throw new RejectedExecutionException(
            owner + "'s threadFactory returned no thread for its " + role + " task");
      }
    }
    started.removeIf(old -> old.getState() == Thread.State.TERMINATED);
    started.add(t);
    return t;
  }

  /** A factory of {@link #newThread} threads in one role, for executors. */
  public ThreadFactory factory(String role) {
    return task -> newThread(task, role);
  }

  /**
   * Waits until every thread made here has ended: a shut-down pool's worker still runs for a moment
   * after the pool says it terminated.
   *
   * @param timeout the longest wait in all; a thread stuck in a call that ignores interrupts is
   *     left behind
   * @throws InterruptedException if the waiting thread is interrupted
   */
  public void awaitEnded(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Thread t : started) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return;
      }
      if (t != Thread.currentThread()) {
        TimeUnit.NANOSECONDS.timedJoin(t, left);
      }
    }
  }
}
