package dev.outboxkit.http;

import static dev.outboxkit.http.Events.SECRET;
import static dev.outboxkit.http.Events.event;
import static dev.outboxkit.http.Events.first;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.testkit.InterruptedCall;
import dev.outboxkit.testkit.http.HttpReceiver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The interrupt contract of {@link WebhookTransport#sendBatch} against a real HTTP receiver: a
 * relay that gives up on a batch interrupts the sending thread and uses what comes back.
 */
class WebhookTransportInterruptTest {
  static final int BATCH = 20;
  static final int ANSWERED = 5;
  static final int IN_FLIGHT = 4;

  final Set<Thread> transportThreads = ConcurrentHashMap.newKeySet();
  final CountDownLatch release = new CountDownLatch(1);
  HttpReceiver receiver;
  WebhookTransport transport;

  @AfterEach
  void stop() {
    release.countDown();
    if (transport != null) {
      transport.close();
    }
    if (receiver != null) {
      receiver.close();
    }
  }

  @Test
  void sendBatch_stops_at_an_interrupt_and_reports_what_was_confirmed() throws Exception {
    // The first five requests are answered at once, every later one hangs: with four requests in
    // flight at most, four hanging requests mean all four senders wait on the receiver and the
    // five answers were taken in, so the interrupt comes at a known point.
    AtomicInteger arrivals = new AtomicInteger();
    Set<String> answeredIds = ConcurrentHashMap.newKeySet();
    CountDownLatch hanging = new CountDownLatch(IN_FLIGHT);
    receiver =
        HttpReceiver.start()
            .respond(
                r -> {
                  if (arrivals.incrementAndGet() <= ANSWERED) {
                    answeredIds.add(r.header(WebhookHeaders.ID));
                    return HttpReceiver.Reply.status(204);
                  }
                  hanging.countDown();
                  return HttpReceiver.Reply.hang(release);
                });
    transport =
        WebhookTransport.builder(WebhookEndpoint.of(receiver.uri("/hooks"), SECRET))
            .allowHttp()
            .allowPrivateAddresses()
            .requestTimeout(Duration.ofSeconds(60))
            .maxInFlight(IN_FLIGHT)
            .threadFactory(
                r -> {
                  Thread t = new Thread(r, "webhook-interrupt-test");
                  t.setDaemon(true);
                  transportThreads.add(t);
                  return t;
                })
            .build();
    List<OutboxMessage> batch = new ArrayList<>();
    for (int i = 0; i < BATCH; i++) {
      batch.add(first(event("agg-" + i, "{\"n\":" + i + "}"))); // one aggregate each: no holds
    }

    InterruptedCall<List<SendResult>> caller =
        InterruptedCall.start("relay-sender", () -> transport.sendBatch(batch));
    assertThat(hanging.await(30, TimeUnit.SECONDS)).as("four requests hang").isTrue();
    int startedBeforeInterrupt = receiver.requests().size();

    caller.interrupt();
    List<SendResult> r = caller.await(Duration.ofSeconds(10)); // fails if sendBatch did not return

    assertThat(caller.returnedWithin()).as("interrupt to return").isLessThan(Duration.ofSeconds(2));
    assertThat(caller.interruptKept()).as("interrupt flag restored").isTrue();
    assertThat(startedBeforeInterrupt).isEqualTo(ANSWERED + IN_FLIGHT);
    assertThat(r).hasSize(BATCH);
    Set<String> deliveredIds = new HashSet<>();
    int inFlightReasons = 0;
    for (int i = 0; i < BATCH; i++) {
      String id = batch.get(i).event().id().toString();
      if (r.get(i).isDelivered()) {
        deliveredIds.add(id);
        continue;
      }
      assertThat(r.get(i).status()).as("event %d", i).isEqualTo(SendResult.Status.UNAVAILABLE);
      String reason = r.get(i).reason().orElseThrow();
      assertThat(reason).startsWith("not confirmed: interrupted before ");
      if (reason.endsWith("it may have received the request")) {
        inFlightReasons++;
      } else {
        assertThat(reason).isEqualTo("not confirmed: interrupted before it was sent");
      }
    }
    assertThat(deliveredIds).as("delivered = answered 2xx").isEqualTo(answeredIds);
    assertThat(inFlightReasons).as("abandoned in flight").isEqualTo(IN_FLIGHT);

    // Nothing was started after the interrupt: let the hanging requests finish, end every thread
    // of the transport (a request it started would hold its thread until answered), then count.
    release.countDown();
    transport.close();
    for (Thread t : transportThreads) {
      t.join(10_000);
      assertThat(t.isAlive()).as("transport thread %s ended", t).isFalse();
    }
    assertThat(receiver.requests()).hasSize(ANSWERED + IN_FLIGHT);
  }
}
