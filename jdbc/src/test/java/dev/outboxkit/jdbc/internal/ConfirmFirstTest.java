package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ConfirmFirstTest {
  private final List<String> sent = new ArrayList<>();
  private final List<String> asked = new ArrayList<>();
  private boolean wrongSize;

  /** Delivers what it is sent; its destination has only the event of aggregate "found". */
  private final Transport lookingUp =
      new Transport() {
        @Override
        public SendResult send(OutboxMessage m) {
          sent.add(m.event().aggregateId());
          return SendResult.delivered();
        }

        @Override
        public List<SendResult> sendBatch(List<OutboxMessage> batch) {
          List<SendResult> results = new ArrayList<>();
          for (OutboxMessage m : batch) {
            results.add(send(m));
          }
          if (wrongSize) {
            results.add(SendResult.delivered());
          }
          return results;
        }

        @Override
        public boolean confirmsDelivery() {
          return true;
        }

        @Override
        public boolean confirm(OutboxMessage m) {
          asked.add(m.event().aggregateId());
          if (m.event().aggregateId().equals("broken")) {
            throw new IllegalStateException("lookup down");
          }
          if (m.event().aggregateId().equals("linkage")) {
            throw new NoClassDefFoundError("com/example/LookupClient");
          }
          return m.event().aggregateId().equals("found");
        }
      };

  private static OutboxMessage message(String aggregateId, int uncertainSends) {
    OutboxEvent e = OutboxEvent.builder("Order", aggregateId, "Placed").payload("{}").build();
    return OutboxMessage.of(e, 1 + uncertainSends, uncertainSends);
  }

  @Test
  void only_events_with_an_uncertain_send_are_looked_up_and_the_found_ones_not_sent() {
    Transport t = ConfirmFirst.wrap(lookingUp, "test");
    List<OutboxMessage> batch =
        List.of(
            message("a", 0),
            message("found", 1),
            message("lost", 2),
            message("broken", 1),
            message("linkage", 1));

    List<SendResult> results = t.sendBatch(batch);

    assertThat(results).hasSize(5).allMatch(SendResult::isDelivered);
    assertThat(asked).containsExactly("found", "lost", "broken", "linkage");
    assertThat(sent)
        .as("a lookup that fails, even with an Error, sends again")
        .containsExactly("a", "lost", "broken", "linkage");
  }

  @Test
  void async_results_keep_the_batch_order() {
    Transport t = ConfirmFirst.wrap(lookingUp, "test");

    List<CompletableFuture<SendResult>> results =
        t.sendBatchAsync(List.of(message("found", 1), message("b", 0)));

    assertThat(results.stream().map(CompletableFuture::join).collect(Collectors.toList()))
        .containsExactly(SendResult.delivered(), SendResult.delivered());
    assertThat(sent).containsExactly("b");
  }

  @Test
  void a_wrong_answer_for_the_rest_is_passed_on_as_wrong() {
    wrongSize = true;
    Transport t = ConfirmFirst.wrap(lookingUp, "test");

    assertThat(t.sendBatch(List.of(message("found", 1), message("b", 0)))).isNull();
  }

  @Test
  void a_transport_that_cannot_look_up_is_left_as_it_is() {
    Transport plain = m -> SendResult.delivered();

    assertThat(ConfirmFirst.wrap(plain, "test")).isSameAs(plain);
  }
}
