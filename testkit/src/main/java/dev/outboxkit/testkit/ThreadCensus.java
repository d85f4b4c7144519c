package dev.outboxkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts threads for the "every thread from the given factory" tests: a factory that records what
 * it made (standing in for a Java EE container's {@code ManagedThreadFactory}), and the JVM's
 * thread list before and after.
 */
public final class ThreadCensus {
  private final Set<Thread> before;
  private final List<String> notOurs;

  private ThreadCensus(List<String> notOurs) {
    this.before = live();
    this.notOurs = notOurs;
  }

  /**
   * Takes the JVM's thread list now.
   *
   * @param notOursPrefixes name prefixes of threads that others start for themselves (a pool, a
   *     driver, a broker client) and so are left out of {@link #startedSince()}
   * @return the census
   */
  public static ThreadCensus take(String... notOursPrefixes) {
    return new ThreadCensus(List.of(notOursPrefixes));
  }

  /** Threads alive now that were not when the census was taken, less the ones not ours. */
  public List<Thread> startedSince() {
    List<Thread> started = new ArrayList<>();
    for (Thread t : live()) {
      if (t.isAlive()
          && !before.contains(t)
          && notOurs.stream().noneMatch(prefix -> t.getName().startsWith(prefix))) {
        started.add(t);
      }
    }
    return started;
  }

  /**
   * Checks a component given a thread factory: it started threads while it ran, every one of them
   * the factory's, and after its close none of the factory's threads nor any other it started is
   * alive. Prints the count.
   *
   * @param factory the factory the component was given
   * @param duringRun {@link #startedSince()} sampled while the component ran
   * @param component what made the threads, for the printed line, e.g. {@code JMS transport}
   */
  public void assertAllMadeBy(CountingFactory factory, List<Thread> duringRun, String component) {
    assertThat(duringRun).as("threads started during the run").isNotEmpty();
    assertThat(factory.created()).containsAll(duringRun);
    assertThat(factory.alive()).as("factory threads alive after close()").isEmpty();
    assertThat(startedSince()).as("threads left after close()").isEmpty();
    System.out.printf(
        "thread census, %s with a factory: %d threads made by it, %d running at the sample, 0"
            + " after close()%n",
        component, factory.created().size(), duringRun.size());
  }

  /**
   * Checks a component without a thread factory: the threads it started while it ran are daemon
   * threads named by the prefix, and none is alive after its close. Prints their names.
   *
   * @param duringRun {@link #startedSince()} sampled while the component ran
   * @param namePrefix how each of its thread names starts, e.g. {@code outboxkit-jms-census-}
   * @param component what made the threads, for the printed line, e.g. {@code JMS transport}
   */
  public void assertOwnDaemonThreads(List<Thread> duringRun, String namePrefix, String component) {
    assertThat(duringRun)
        .isNotEmpty()
        .allSatisfy(
            t -> {
              assertThat(t.getName()).startsWith(namePrefix);
              assertThat(t.isDaemon()).isTrue();
            });
    assertThat(startedSince()).as("threads left after close()").isEmpty();
    System.out.printf(
        "thread census, %s without a factory: %d own threads %s, 0 after close()%n",
        component, duringRun.size(), duringRun.stream().map(Thread::getName).sorted().toList());
  }

  /**
   * CPU time a live thread has used so far, for "a paused thread stays idle" checks (a test of a
   * named module that does not read {@code java.management} can use it from here).
   */
  public static Duration cpuTime(Thread thread) {
    return Duration.ofNanos(ManagementFactory.getThreadMXBean().getThreadCpuTime(thread.getId()));
  }

  /** The live thread whose name starts with this prefix; fails if there is none. */
  public static Thread named(String prefix) {
    for (Thread t : live()) {
      if (t.isAlive() && t.getName().startsWith(prefix)) {
        return t;
      }
    }
    throw new AssertionError("no live thread named " + prefix + "…");
  }

  private static Set<Thread> live() {
    return new HashSet<>(Thread.getAllStackTraces().keySet());
  }

  /**
   * A thread factory that records every thread it makes: daemon threads named {@code managed-n}.
   */
  public static final class CountingFactory implements ThreadFactory {
    private final List<Thread> created = new CopyOnWriteArrayList<>();
    private final AtomicInteger n = new AtomicInteger();

    @Override
    public Thread newThread(Runnable r) {
      Thread t = new Thread(r, "managed-" + n.incrementAndGet());
      t.setDaemon(true);
      created.add(t);
      return t;
    }

    /** Every thread made so far. */
    public List<Thread> created() {
      return List.copyOf(created);
    }

    /** The threads made so far that are still alive. */
    public List<Thread> alive() {
      List<Thread> alive = new ArrayList<>();
      for (Thread t : created) {
        if (t.isAlive()) {
          alive.add(t);
        }
      }
      return alive;
    }
  }
}
