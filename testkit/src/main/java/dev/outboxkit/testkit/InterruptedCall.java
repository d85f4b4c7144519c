package dev.outboxkit.testkit;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A call made on a thread of its own for the test to interrupt: the harness of the interrupt
 * contract tests ("a caller that gives up interrupts the calling thread; the call returns at once,
 * with what it has, and keeps the flag").
 *
 * <p>The test {@linkplain #start starts} the call, brings the other side (a receiver, a broker) to
 * the point where the call must be waiting, {@linkplain #interrupt() interrupts} it and {@linkplain
 * #await awaits} the result; then it checks how soon after the interrupt the call returned ({@link
 * #returnedWithin()}) and whether the interrupt flag was still set when it did ({@link
 * #interruptKept()}). The thread records the time and the flag itself, the moment the call comes
 * back, so neither depends on when the test gets to look.
 *
 * @param <T> what the call returns
 */
public final class InterruptedCall<T> {
  private final Callable<? extends T> call;
  private final Thread thread;
  private final CountDownLatch returned = new CountDownLatch(1);
  private volatile T result;
  private volatile Throwable failure;
  private volatile long returnedAt;
  private volatile boolean interruptKept;
  private volatile boolean interrupted;
  private volatile long interruptedAt;

  private InterruptedCall(String threadName, Callable<? extends T> call) {
    this.call = call;
    this.thread = new Thread(this::run, threadName);
    // A call that never returns fails the test in await; it must not also keep the JVM alive.
    thread.setDaemon(true);
  }

  /**
   * Starts the call on a new daemon thread.
   *
   * @param threadName the thread's name, as the caller it stands for names its own (it shows in
   *     thread dumps and logs)
   * @param call the call to interrupt, e.g. {@code () -> transport.sendBatch(batch)}
   * @param <T> what the call returns
   * @return the running call
   */
  public static <T> InterruptedCall<T> start(String threadName, Callable<? extends T> call) {
    InterruptedCall<T> started = new InterruptedCall<>(threadName, call);
    started.thread.start();
    return started;
  }

  private void run() {
    try {
      result = call.call();
    } catch (Throwable t) {
      failure = t;
    }
    // The time first, then the flag (Thread.interrupted() clears it): the flag as the call left it.
    returnedAt = System.nanoTime();
    interruptKept = Thread.interrupted();
    returned.countDown();
  }

  /**
   * The thread making the call, for a test that must see where it waits (its stack, its state)
   * before it interrupts.
   *
   * @return the calling thread
   */
  public Thread thread() {
    return thread;
  }

  /**
   * Interrupts the calling thread and remembers when, for {@link #returnedWithin()}.
   *
   * @throws IllegalStateException if it was interrupted already: one interrupt, one time to measure
   *     from
   */
  public void interrupt() {
    if (interrupted) {
      throw new IllegalStateException(thread.getName() + " was interrupted already");
    }
    interruptedAt = System.nanoTime();
    interrupted = true;
    thread.interrupt();
  }

  /**
   * Waits for the call to return: the test's check that it returns at all, and its result.
   *
   * @param timeout how long to wait at the most
   * @return what the call returned
   * @throws AssertionError if it did not return within the timeout (it is still blocked: the
   *     contract is broken), or if it threw instead (with that as the cause)
   * @throws InterruptedException if the test's own thread is interrupted while it waits
   */
  public T await(Duration timeout) throws InterruptedException {
    if (!returned.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
      throw new AssertionError(
          String.format(
              "%s did not return within %s (it is %s)",
              thread.getName(), timeout, thread.getState()));
    }
    if (failure != null) {
      throw new AssertionError(thread.getName() + " threw instead of returning", failure);
    }
    return result;
  }

  /**
   * How long after {@link #interrupt()} the call returned: the contract's "at once". Negative if it
   * returned before the interrupt, which only a check of {@link #interruptKept()} can then tell
   * from a prompt return.
   *
   * @return the time from the interrupt to the return
   * @throws IllegalStateException before the interrupt, or before the call returned
   */
  public Duration returnedWithin() {
    if (!interrupted) {
      throw new IllegalStateException(thread.getName() + " was not interrupted");
    }
    return Duration.ofNanos(returnedAt() - interruptedAt);
  }

  /**
   * Whether the calling thread's interrupt flag was still set when the call returned: a call that
   * gives up at an interrupt must leave it set, so that its own caller sees it too.
   *
   * @return {@code true} if the flag was set on return
   * @throws IllegalStateException before the call returned
   */
  public boolean interruptKept() {
    returnedAt();
    return interruptKept;
  }

  private long returnedAt() {
    if (returned.getCount() != 0) {
      throw new IllegalStateException(thread.getName() + " has not returned");
    }
    return returnedAt;
  }
}
