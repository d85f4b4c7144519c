package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.SendResult;
import dev.outboxkit.testing.RecordingTransport;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.ThreadCensus;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Wake-ups against the relay's pauses. The relay loop is the same on every database, so H2 is
 * enough: an application that calls {@code wakeUp()} after each of hundreds of commits a second
 * must neither turn an outage pause into a spin nor end it early.
 */
class H2RelayWakeUpTest extends RelayDatabaseTest {
  @Override
  protected Flavor flavor() {
    return Flavor.H2;
  }

  @Test
  void wake_ups_during_an_outage_are_coalesced_and_cost_the_relay_thread_no_more_than_idling()
      throws Exception {
    append(5, i -> event("a" + i, i));
    CountDownLatch down = new CountDownLatch(1);
    RecordingTransport broker =
        new RecordingTransport()
            .respondWith(
                m -> {
                  down.countDown();
                  return SendResult.unavailable("broker down");
                });
    try (OutboxRelay relay =
        relay(broker, "wakeful")
            .outageBackoff(Duration.ofSeconds(1), Duration.ofSeconds(1))
            .build()) {
      relay.start();
      assertThat(down.await(10, TimeUnit.SECONDS)).isTrue();
      Thread worker = ThreadCensus.named("outboxkit-wakeful-worker");

      // Five seconds of the outage with nobody calling, then five with an application that
      // commits an event about 500 times a second and wakes the relay after each commit.
      Duration idleStart = ThreadCensus.cpuTime(worker);
      int probesBefore = broker.attempts().size();
      Thread.sleep(5_000);
      long idleMillis = ThreadCensus.cpuTime(worker).minus(idleStart).toMillis();
      int idleProbes = broker.attempts().size() - probesBefore;

      Duration busyStart = ThreadCensus.cpuTime(worker);
      probesBefore = broker.attempts().size();
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      int wakeUps = 0;
      while (System.nanoTime() < end) {
        try (Connection c = transaction()) {
          Outbox.append(c, event("busy", wakeUps));
          c.commit();
        }
        relay.wakeUp();
        wakeUps++;
        Thread.sleep(2);
      }
      long busyMillis = ThreadCensus.cpuTime(worker).minus(busyStart).toMillis();
      int busyProbes = broker.attempts().size() - probesBefore;

      System.out.printf(
          "relay thread CPU over 5 s of an outage: %d ms idle (%d probe sends), %d ms with %d"
              + " commits each followed by wakeUp() (%d probe sends)%n",
          idleMillis, idleProbes, busyMillis, wakeUps, busyProbes);
      // Pauses of 0.5 to 1 s: at most about ten probes in five seconds, wake-ups or not.
      assertThat(busyProbes).as("probe sends while woken").isLessThanOrEqualTo(12);
      assertThat(busyMillis)
          .as("CPU of the relay thread while woken ~500 times a second, ms (idle: %d)", idleMillis)
          .isLessThan(idleMillis + 300);
    }
  }
}
