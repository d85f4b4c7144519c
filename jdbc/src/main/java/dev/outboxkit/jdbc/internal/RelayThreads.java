package dev.outboxkit.jdbc.internal;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where every thread of a relay comes from: the user's factory when one is configured (a Java EE
 * container's {@code ManagedThreadFactory}, say), otherwise daemon threads of the relay's own,
 * named {@code outboxkit-<relay>-<role>-<n>} for thread dumps. The one place a relay starts a
 * thread.
 */
public final class RelayThreads {
  /**
   * Most threads that run transport calls at once: the relay's own batch, a few callers of {@code
   * runOnce}, and calls abandoned in a transport that ignores interrupts — which therefore cost a
   * bounded number of threads.
   */
  public static final int MAX_SEND_THREADS = dev.outboxkit.jdbc.OutboxRelay.MAX_SEND_THREADS;

  private static final AtomicInteger COUNTER = new AtomicInteger();

  private final ThreadFactory factory;
  private final String prefix;
  private final Set<Thread> started = ConcurrentHashMap.newKeySet();

  /**
   * @param factory the user's factory, or null for the relay's own daemon threads
   * @param relayName the relay's name, in its own threads' names
   */
  public RelayThreads(ThreadFactory factory, String relayName) {
    this.factory = factory;
    this.prefix = "outboxkit-" + relayName;
  }

  /**
   * A new, unstarted thread.
   *
   * @param role what the thread does, in the relay's own threads' names
   * @throws RejectedExecutionException if the user's factory returned no thread
   */
  public Thread newThread(Runnable task, String role) {
    Thread t;
    if (factory == null) {
      t = new Thread(task, prefix + "-" + role + "-" + COUNTER.incrementAndGet());
      t.setDaemon(true);
    } else {
      t = factory.newThread(task);
      if (t == null) {
        throw new RejectedExecutionException(
            "the relay's threadFactory returned no thread for its " + role + " task");
      }
    }
    started.removeIf(old -> old.getState() == Thread.State.TERMINATED);
    started.add(t);
    return t;
  }

  /**
   * Waits until every thread made here has ended, so that none outlives the relay's close (a
   * container counts them on undeploy): a pool's worker is still running for a moment after the
   * pool says it terminated.
   *
   * @param timeout the longest wait in all; a thread stuck in a transport that ignores interrupts
   *     is left behind
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

  /**
   * The pool that runs transport calls, so a call that overruns {@code sendTimeout} can be left
   * behind: threads are made when a send finds none idle, up to {@link #MAX_SEND_THREADS} (beyond,
   * a send is rejected), and end after a minute of idleness.
   */
  public ExecutorService senderPool() {
    return new ThreadPoolExecutor(
        0,
        MAX_SEND_THREADS,
        60,
        TimeUnit.SECONDS,
        new SynchronousQueue<>(),
        task -> newThread(task, "send"));
  }
}
