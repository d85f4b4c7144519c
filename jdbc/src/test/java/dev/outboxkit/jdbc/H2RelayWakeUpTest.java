package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.SendResult;
import dev.outboxkit.testing.RecordingTransport;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.ThreadCensus;
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
  void wake_ups_during_an_outage_pause_are_coalesced_and_honour_the_pause() throws Exception {
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
            .outageBackoff(Duration.ofSeconds(3), Duration.ofSeconds(3))
            .build()) {
      relay.start();
      assertThat(down.await(10, TimeUnit.SECONDS)).isTrue();
      Thread.sleep(50); // the outage is recorded and the pause begins
      Thread worker = ThreadCensus.named("outboxkit-wakeful-worker");
      int sendsBefore = broker.attempts().size();
      Duration cpuBefore = ThreadCensus.cpuTime(worker);

      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
      int wakeUps = 0;
      while (System.nanoTime() < end) {
        relay.wakeUp(); // ~500 commits a second, each followed by a wake-up
        wakeUps++;
        Thread.sleep(2);
      }

      long cpuMillis = ThreadCensus.cpuTime(worker).minus(cpuBefore).toMillis();
      System.out.printf(
          "relay thread CPU during 2 s of an outage pause with %d wake-ups: %d ms%n",
          wakeUps, cpuMillis);
      assertThat(broker.attempts().size() - sendsBefore)
          .as("sends during the pause: at most the one probe when it ends")
          .isLessThanOrEqualTo(1);
      assertThat(cpuMillis).as("CPU of the paused relay thread, ms").isLessThan(200);
    }
  }
}
