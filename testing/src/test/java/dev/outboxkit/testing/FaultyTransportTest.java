package dev.outboxkit.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.SendResult.Status;
import dev.outboxkit.Transport;
import dev.outboxkit.testing.FaultyTransport.Fault;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class FaultyTransportTest {
  private final RecordingTransport inner = new RecordingTransport();

  @Test
  void fails_the_nth_message_and_passes_the_rest_to_the_wrapped_transport_in_order() {
    FaultyTransport t = FaultyTransport.wrap(inner).failNth(2, Fault.retry("injected")).build();

    List<SendResult> results = t.sendBatch(messages("a", "b", "c"));

    assertThat(results)
        .extracting(SendResult::status)
        .containsExactly(Status.DELIVERED, Status.RETRY, Status.DELIVERED);
    assertThat(results.get(1).reason()).contains("injected");
    assertThat(aggregates(inner.deliveredEvents())).containsExactly("a", "c");
    assertThat(t.messages()).isEqualTo(3);
    assertThat(t.faultsInjected()).isEqualTo(1);
  }

  @Test
  void counts_messages_across_calls_for_every_nth() {
    FaultyTransport t = FaultyTransport.wrap(inner).failEvery(3, Fault.reject("bad")).build();

    List<Status> statuses = new ArrayList<>();
    for (int call = 0; call < 3; call++) {
      t.sendBatch(messages("a", "b")).forEach(r -> statuses.add(r.status()));
    }

    assertThat(statuses)
        .containsExactly(
            Status.DELIVERED,
            Status.DELIVERED,
            Status.REJECT,
            Status.DELIVERED,
            Status.DELIVERED,
            Status.REJECT);
  }

  @Test
  void a_fraction_is_chosen_by_the_seed_and_repeats_with_it() {
    List<Status> first = statusesFailingAFraction(7);
    List<Status> again = statusesFailingAFraction(7);
    List<Status> other = statusesFailingAFraction(8);

    assertThat(first).isEqualTo(again).isNotEqualTo(other);
    long failed = first.stream().filter(s -> s == Status.UNAVAILABLE).count();
    assertThat(failed).isBetween(15L, 45L); // of 100, at a fraction of 0.3
  }

  @Test
  void picks_by_event_and_scopes_an_outage_to_a_destination() {
    FaultyTransport t =
        FaultyTransport.wrap(inner)
            .failWhen(e -> e.aggregateId().equals("b"), Fault.unavailable("down", "endpoint b"))
            .build();

    List<SendResult> results = t.sendBatch(messages("a", "b"));

    assertThat(results.get(0).isDelivered()).isTrue();
    assertThat(results.get(1).scope()).contains("endpoint b");
  }

  @Test
  void an_exception_fault_throws_from_the_call_before_anything_is_sent() {
    FaultyTransport t =
        FaultyTransport.wrap(inner)
            .failNth(2, Fault.exception(new IllegalStateException("boom")))
            .build();

    assertThatThrownBy(() -> t.sendBatch(messages("a", "b", "c"))).hasMessage("boom");
    assertThat(inner.attempts()).isEmpty();
  }

  @Test
  void a_hang_returns_promptly_with_the_interrupt_flag_when_its_thread_is_interrupted()
      throws Exception {
    FaultyTransport t =
        FaultyTransport.wrap(inner).failNth(1, Fault.hang(Duration.ofMinutes(5))).build();
    AtomicReference<List<SendResult>> results = new AtomicReference<>();
    AtomicReference<Boolean> flag = new AtomicReference<>();
    Thread caller =
        new Thread(
            () -> {
              results.set(t.sendBatch(messages("a")));
              flag.set(Thread.currentThread().isInterrupted());
            });
    caller.start();
    Thread.sleep(100);
    caller.interrupt();
    caller.join(5_000);

    assertThat(caller.isAlive()).isFalse();
    assertThat(flag.get()).isTrue();
    assertThat(results.get().get(0).status()).isEqualTo(Status.UNAVAILABLE);
  }

  @Test
  void keeps_the_wrapped_transports_promise_of_order_after_a_fault() {
    Transport ordered =
        new Transport() {
          @Override
          public SendResult send(OutboxMessage m) {
            return inner.send(m);
          }

          @Override
          public boolean keepsOrderWithinBatch() {
            return true;
          }
        };
    FaultyTransport t = FaultyTransport.wrap(ordered).failNth(1, Fault.retry("injected")).build();

    List<SendResult> results = t.sendBatch(messages("a", "a", "b"));

    assertThat(results)
        .extracting(SendResult::status)
        .containsExactly(Status.RETRY, Status.RETRY, Status.DELIVERED);
    assertThat(results.get(1).reason().orElseThrow()).startsWith("not sent");
    assertThat(aggregates(inner.deliveredEvents())).containsExactly("b");
    assertThat(t.keepsOrderWithinBatch()).isTrue();
  }

  @Test
  void refuses_rules_that_cannot_pick_anything_sensible() {
    FaultyTransport.Builder b = FaultyTransport.wrap(inner);
    assertThatThrownBy(() -> b.failNth(0, Fault.retry("x")))
        .isInstanceOf(OutboxConfigurationException.class);
    assertThatThrownBy(() -> b.failFraction(1.5, Fault.retry("x")))
        .isInstanceOf(OutboxConfigurationException.class);
    assertThatThrownBy(() -> b.failEvery(3, null)).isInstanceOf(NullPointerException.class);
  }

  /** The statuses of 100 messages sent through a transport failing 0.3 of them, by the seed. */
  private List<Status> statusesFailingAFraction(long seed) {
    FaultyTransport t =
        FaultyTransport.wrap(inner).failFraction(0.3, Fault.unavailable("down")).seed(seed).build();
    List<Status> all = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      t.sendBatch(messages("a", "b", "c", "d", "e", "f", "g", "h", "i", "j"))
          .forEach(r -> all.add(r.status()));
    }
    return all;
  }

  static List<OutboxMessage> messages(String... aggregates) {
    List<OutboxMessage> all = new ArrayList<>();
    for (String a : aggregates) {
      all.add(OutboxMessage.of(OutboxEvent.builder("Order", a, "Placed").payload("{}").build(), 1));
    }
    return all;
  }

  private static List<String> aggregates(List<OutboxEvent> events) {
    return events.stream().map(OutboxEvent::aggregateId).collect(Collectors.toList());
  }
}
