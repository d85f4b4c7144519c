package dev.outboxkit.jms;

import static dev.outboxkit.jms.JmsTransportTest.QUIET;
import static dev.outboxkit.jms.JmsTransportTest.event;
import static dev.outboxkit.jms.JmsTransportTest.messages;
import static dev.outboxkit.jms.JmsTransportTest.statuses;
import static dev.outboxkit.jms.JmsTransportTest.unique;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.SendResult;
import dev.outboxkit.SendResult.Status;
import dev.outboxkit.testkit.activemq.ActiveMqTestBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** One transaction per batch: what consumers see when something fails inside it. */
class JmsTransactionTest {
  private static final FaultPlugin faults = new FaultPlugin();
  private static ActiveMqTestBroker broker;
  private JmsTransport transport;

  @BeforeAll
  static void startBroker() {
    broker = ActiveMqTestBroker.startInMemory("transactions", faults);
  }

  @AfterAll
  static void stopBroker() {
    broker.close();
  }

  @AfterEach
  void cleanUp() {
    faults.reset();
    if (transport != null) {
      transport.close();
    }
  }

  @Test
  void a_batch_is_invisible_to_consumers_until_its_single_commit() throws Exception {
    String type = unique("Atomic");
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      events.add(event(type, "a" + (i % 4), i));
    }
    List<Integer> seenBeforeCommit = new ArrayList<>();
    transport =
        JmsTransport.builder(new ActiveMQConnectionFactory(broker.url()))
            .destinationRouter(
                e -> {
                  // Runs between the sends: the messages sent so far sit in the open transaction.
                  if (e == events.get(19)) {
                    try {
                      seenBeforeCommit.add(
                          QueueReader.readAll(
                                  new ActiveMQConnectionFactory(broker.url()),
                                  "outbox." + type,
                                  QUIET)
                              .size());
                    } catch (Exception ex) {
                      throw new IllegalStateException(ex);
                    }
                  }
                  return null;
                })
            .build();
    int commitsBefore = faults.commits.get();

    List<SendResult> results = transport.sendBatch(messages(events));

    assertThat(statuses(results)).containsOnly(Status.DELIVERED);
    assertThat(seenBeforeCommit).containsExactly(0);
    assertThat(faults.commits.get() - commitsBefore).isEqualTo(1);
    assertThat(ids(type)).containsExactlyElementsOf(events.stream().map(OutboxEvent::id).toList());
  }

  @Test
  void a_refused_commit_leaves_nothing_visible_and_the_events_retry() throws Exception {
    String type = unique("Refused");
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      events.add(event(type, "a" + i, i));
    }
    faults.refuseCommits.set(Integer.MAX_VALUE);
    transport = JmsTransport.builder(new ActiveMQConnectionFactory(broker.url())).build();

    List<SendResult> results = transport.sendBatch(messages(events));

    assertThat(statuses(results)).containsOnly(Status.RETRY);
    assertThat(results.get(0).reason().orElseThrow())
        .startsWith("the JMS provider refused the commit")
        .contains("commit refused by the test broker");
    assertThat(ids(type)).isEmpty();
  }

  @Test
  void one_refused_commit_is_followed_by_one_transaction_per_event_and_all_arrive_once()
      throws Exception {
    String type = unique("Isolate");
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      events.add(event(type, "a" + (i % 2), i));
    }
    faults.refuseCommits.set(1);
    transport = JmsTransport.builder(new ActiveMQConnectionFactory(broker.url())).build();
    int commitsBefore = faults.commits.get();

    List<SendResult> results = transport.sendBatch(messages(events));

    assertThat(statuses(results)).containsOnly(Status.DELIVERED);
    assertThat(faults.commits.get() - commitsBefore).isEqualTo(1 + events.size());
    assertThat(ids(type)).containsExactlyElementsOf(events.stream().map(OutboxEvent::id).toList());
  }

  @Test
  void a_message_the_broker_refuses_fails_only_itself_and_the_rest_of_its_aggregate()
      throws Exception {
    String type = unique("Poison");
    OutboxEvent a1 = event(type, "a", 1);
    OutboxEvent poison =
        OutboxEvent.builder(type, "a", "T")
            .payload("{}")
            .header(FaultPlugin.REFUSE_HEADER, "yes")
            .build();
    OutboxEvent a3 = event(type, "a", 3);
    OutboxEvent b1 = event(type, "b", 1);
    OutboxEvent b2 = event(type, "b", 2);
    transport = JmsTransport.builder(new ActiveMQConnectionFactory(broker.url())).build();

    List<SendResult> results = transport.sendBatch(messages(List.of(a1, poison, a3, b1, b2)));

    // ActiveMQ sends a transaction's messages asynchronously and fails the commit when the broker
    // refused one of them: the transport then finds the culprit one transaction per event.
    assertThat(statuses(results))
        .containsExactly(
            Status.DELIVERED, Status.RETRY, Status.RETRY, Status.DELIVERED, Status.DELIVERED);
    assertThat(results.get(2).reason().orElseThrow()).contains(poison.id().toString());
    assertThat(ids(type)).containsExactly(a1.id(), b1.id(), b2.id());
  }

  @Test
  void a_stalled_commit_is_cut_off_at_the_send_timeout_as_unavailable_and_the_next_send_reconnects()
      throws Exception {
    String type = unique("Stall");
    transport =
        JmsTransport.builder(new ActiveMQConnectionFactory(broker.url()))
            // 2 s: it cuts the stall, and it bounds the next call's reconnect, sends and commit.
            .sendTimeout(Duration.ofSeconds(2))
            .build();
    List<OutboxEvent> events = List.of(event(type, "a", 1), event(type, "b", 2));
    faults.commitStall = Duration.ofSeconds(6);

    List<SendResult> stalled = transport.sendBatch(messages(events));

    assertThat(statuses(stalled)).containsOnly(Status.UNAVAILABLE);
    assertThat(stalled.get(0).reason().orElseThrow())
        .isEqualTo("no answer from the JMS provider within the sendTimeout of PT2S");

    faults.commitStall = Duration.ZERO;
    List<SendResult> again = transport.sendBatch(messages(events));

    assertThat(statuses(again)).containsOnly(Status.DELIVERED);
    // The stalled commit may still have gone through at the broker: at least once, not exactly.
    assertThat(ids(type)).containsAll(events.stream().map(OutboxEvent::id).toList());
  }

  private List<UUID> ids(String type) throws Exception {
    return QueueReader.eventIds(
        new ActiveMQConnectionFactory(broker.url()), "outbox." + type, QUIET);
  }
}
