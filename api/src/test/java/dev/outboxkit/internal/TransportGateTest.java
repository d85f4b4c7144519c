package dev.outboxkit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class TransportGateTest {
  private final TransportGate gate = new TransportGate("Test transport 't1'");
  private final List<List<OutboxMessage>> sent = new ArrayList<>();

  private static List<OutboxMessage> batch(int size) {
    List<OutboxMessage> batch = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      batch.add(
          OutboxMessage.of(
              OutboxEvent.builder("Order", "o" + i, "OrderPlaced").payload("{}").build(), 1));
    }
    return batch;
  }

  private List<SendResult> deliverAll(List<OutboxMessage> batch) {
    sent.add(batch);
    return batch.stream().map(m -> SendResult.delivered()).collect(Collectors.toList());
  }

  @Test
  void an_open_gate_hands_a_batch_to_the_sender_and_an_empty_one_to_nobody() {
    assertThat(gate.send(batch(2), this::deliverAll))
        .extracting(SendResult::status)
        .containsExactly(SendResult.Status.DELIVERED, SendResult.Status.DELIVERED);
    assertThat(gate.send(List.of(), this::deliverAll)).isEmpty();
    assertThat(gate.start(List.of(), b -> List.of(new CompletableFuture<>()))).isEmpty();

    assertThat(sent).hasSize(1);
  }

  @Test
  void a_closed_gate_answers_every_message_unavailable_naming_the_transport_and_sends_nothing() {
    assertThat(gate.close()).isTrue();
    assertThat(gate.close()).as("only the first close releases").isFalse();
    assertThat(gate.isClosed()).isTrue();

    List<SendResult> results = gate.send(batch(3), this::deliverAll);
    List<CompletableFuture<SendResult>> futures =
        gate.start(batch(2), b -> List.of(new CompletableFuture<>(), new CompletableFuture<>()));

    assertThat(results)
        .hasSize(3)
        .allSatisfy(
            r -> {
              assertThat(r.status()).isEqualTo(SendResult.Status.UNAVAILABLE);
              assertThat(r.reason()).hasValue("Test transport 't1' is closed");
            });
    assertThat(futures)
        .hasSize(2)
        .allSatisfy(
            f -> assertThat(f.getNow(null).status()).isEqualTo(SendResult.Status.UNAVAILABLE));
    assertThat(sent).isEmpty();
  }

  @Test
  void one_message_goes_as_a_batch_of_one() {
    OutboxMessage message = batch(1).get(0);

    assertThat(gate.sendOne(message, b -> gate.send(b, this::deliverAll)).status())
        .isEqualTo(SendResult.Status.DELIVERED);
    assertThat(sent).containsExactly(List.of(message));
    assertThatThrownBy(() -> gate.sendOne(null, this::deliverAll))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("message");
  }

  @Test
  void a_null_batch_is_refused_by_name() {
    assertThatThrownBy(() -> gate.send(null, this::deliverAll))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("batch");
    assertThatThrownBy(() -> gate.start(null, b -> List.of()))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("batch");
  }
}
