package dev.outboxkit.jdbc.internal;

import dev.outboxkit.internal.OwnedThreads;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Where every thread of a relay comes from ({@link OwnedThreads}: the user's factory, else daemon
 * threads named {@code outboxkit-<relay>-<role>-<n>}), and the pool that runs its transport calls.
 */
final class RelayThreads {
  /** Most threads that run transport calls at once: {@link RelayEngine#MAX_SEND_THREADS}. */
  static final int MAX_SEND_THREADS = RelayEngine.MAX_SEND_THREADS;

  private final OwnedThreads threads;

  /**
   * @param factory the user's factory, or null for the relay's own daemon threads
   * @param relayName the relay's name, in its own threads' names
   */
  public RelayThreads(ThreadFactory factory, String relayName) {
    this.threads = new OwnedThreads(factory, "outboxkit-" + relayName + "-", "the relay");
  }

  /**
   * A new, unstarted thread.
   *
   * @param role what the thread does, in the relay's own threads' names
   * @throws RejectedExecutionException if the user's factory returned no thread
   */
  public Thread newThread(Runnable task, String role) {
    return threads.newThread(task, role);
  }

  /**
   * Waits until every thread made here has ended, so that none outlives the relay's close.
   *
   * @param timeout the longest wait in all; a thread stuck in a transport that ignores interrupts
   *     is left behind
   */
  public void awaitEnded(Duration timeout) throws InterruptedException {
    threads.awaitEnded(timeout);
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
        threads.factory("send"));
  }
}
