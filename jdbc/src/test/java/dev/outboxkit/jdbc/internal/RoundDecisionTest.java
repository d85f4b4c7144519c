package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.SendResult;
import dev.outboxkit.jdbc.RelayListener;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every row of the mapping from send results to table states, without a database: claimed rows and
 * results in, acknowledgements, listener calls and the outage verdict out.
 */
class RoundDecisionTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC);
  private static final Duration RETRY_CAP = Duration.ofSeconds(8);

  private final List<String> heard = new ArrayList<>();
  private final RelayListener listener =
      new RelayListener() {
        @Override
        public void published(OutboxEvent event, int attempt, Duration lag) {
          heard.add("published " + event.aggregateId() + event.headers().get("n"));
        }

        @Override
        public void retried(OutboxEvent event, int attempt, String reason, Duration delay) {
          heard.add("retried " + event.aggregateId() + event.headers().get("n"));
        }

        @Override
        public void dead(OutboxEvent event, int attempt, String reason) {
          heard.add("dead " + event.aggregateId() + event.headers().get("n"));
        }

        @Override
        public void uncertain(OutboxEvent event, int attempt, String reason) {
          heard.add("uncertain " + event.aggregateId() + event.headers().get("n"));
        }

        @Override
        public void expired(OutboxEvent event) {
          heard.add("expired " + event.aggregateId() + event.headers().get("n"));
        }

        @Override
        public void destinationUnavailable(String scope, int events, Duration pause) {
          heard.add("down " + scope + " " + events);
        }
      };

  /**
   * One event, attempt 1 of 3, not probing, transport that classifies its failures.
   *
   * <p>Columns: result, then the expected ack kind, charged, delay in ms (-1: any within the
   * backoff cap), and whether the round suggests an outage / proves the transport answered.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "delivered,             PUBLISHED, true,  0,    false, true",
    "reject,                DEAD,      true,  0,    false, true",
    "retry,                 RETRY,     true,  -1,   false, true",
    "uncertain,             RETRY,     true,  -1,   false, true",
    "retry after 2s,        RETRY,     true,  2000, false, true",
    "retry after 1h,        RETRY,     true,  60000, false, true",
    "unavailable,           RELEASE,   false, 0,    true,  false",
    "unavailable scoped,    HOLD,      false, -1,   false, true",
    "timed out,             RELEASE,   false, 0,    true,  false",
  })
  void maps_one_result(
      String result,
      Ack.Kind kind,
      boolean charged,
      long delayMillis,
      boolean outage,
      boolean answered) {
    RoundDecision.Decided decided =
        decideRound(
            decision(true, false, false, 3), List.of(claimed(1, "A", 0, 1)), outcome(result, 1));

    Ack ack = decided.acks.get(0);
    assertThat(ack.kind()).isEqualTo(kind);
    assertThat(ack.charged()).isEqualTo(charged);
    if (delayMillis >= 0) {
      assertThat(ack.delayMicros()).isEqualTo(delayMillis * 1000);
    } else {
      assertThat(ack.delayMicros()).isBetween(0L, RETRY_CAP.toNanos() / 1000);
    }
    assertThat(decided.outage != null).isEqualTo(outage);
    assertThat(decided.answered).isEqualTo(answered);
  }

  @Test
  void a_retry_past_the_budget_is_dead_naming_the_attempts() {
    RoundDecision.Decided decided =
        decideRound(
            decision(true, false, false, 3), List.of(claimed(1, "A", 0, 3)), outcome("retry", 1));

    assertThat(decided.acks.get(0).kind()).isEqualTo(Ack.Kind.DEAD);
    assertThat(decided.acks.get(0).error()).startsWith("gave up after 3 attempts: ");
    assertThat(notices(decided)).containsExactly("dead A0");
  }

  @Test
  void an_uncertain_send_is_counted_on_its_retry_or_its_quarantine_and_told() {
    for (int attempt : new int[] {1, 3}) {
      heard.clear();
      RoundDecision.Decided decided =
          decideRound(
              decision(true, false, false, 3),
              List.of(claimed(1, "A", 0, attempt)),
              outcome("uncertain", 1));

      Ack ack = decided.acks.get(0);
      assertThat(ack.kind()).isEqualTo(attempt < 3 ? Ack.Kind.RETRY : Ack.Kind.DEAD);
      assertThat(ack.uncertain()).as("attempt %s", attempt).isTrue();
      assertThat(notices(decided))
          .containsExactly("uncertain A0", attempt < 3 ? "retried A0" : "dead A0");
    }
    Ack plain =
        decideRound(
                decision(true, false, false, 3),
                List.of(claimed(1, "A", 0, 1)),
                outcome("retry", 1))
            .acks
            .get(0);
    assertThat(plain.uncertain()).isFalse();
  }

  @Test
  void uniform_uncertain_sends_are_never_taken_for_an_outage() {
    RoundDecision decision = decision(false, false, false, 3);
    RoundDecision.Round round =
        decision.prepare(List.of(claimed(1, "A", 0, 1), claimed(2, "B", 0, 1)));

    RoundDecision.Decided decided = decision.decide(round, outcome("uncertain", 2), false);

    assertThat(kinds(decided)).containsExactly(Ack.Kind.RETRY, Ack.Kind.RETRY);
    assertThat(decided.outage).isNull();
  }

  @ParameterizedTest(name = "probing, {0}")
  @CsvSource({"retry", "unavailable"})
  void while_probing_a_failure_delays_the_probe_uncharged_and_keeps_the_outage(String result) {
    RoundDecision decision = decision(true, false, false, 3);
    RoundDecision.Round round = decision.prepare(List.of(claimed(1, "A", 0, 1)));

    RoundDecision.Decided decided = decision.decide(round, outcome(result, 1), true);

    Ack ack = decided.acks.get(0);
    assertThat(ack.kind()).isEqualTo(Ack.Kind.RETRY);
    assertThat(ack.charged()).isFalse();
    assertThat(ack.delayMicros()).isPositive();
    assertThat(decided.outage).isNotNull();
    assertThat(decided.answered).isFalse();
  }

  @Test
  void a_uniform_retry_is_an_outage_only_for_a_transport_that_does_not_classify() {
    for (boolean classifies : new boolean[] {false, true}) {
      RoundDecision decision = decision(classifies, false, false, 3);
      RoundDecision.Round round =
          decision.prepare(List.of(claimed(1, "A", 0, 1), claimed(2, "B", 0, 1)));

      RoundDecision.Decided decided = decision.decide(round, outcome("retry", 2), false);

      assertThat(kinds(decided))
          .as("classifies: %s", classifies)
          .containsExactly(
              classifies ? Ack.Kind.RETRY : Ack.Kind.RELEASE,
              classifies ? Ack.Kind.RETRY : Ack.Kind.RELEASE);
      assertThat(decided.outage != null).isEqualTo(!classifies);
    }
  }

  @Test
  void events_held_behind_in_a_wave_do_not_break_a_uniform_retry() {
    RoundDecision decision = decision(false, false, true, 3);
    RoundDecision.Round round =
        decision.prepare(
            List.of(claimed(1, "A", 0, 1), claimed(2, "A", 1, 1), claimed(3, "B", 0, 1)));
    BitSet heldBehind = new BitSet();
    heldBehind.set(1);

    RoundDecision.Decided decided =
        decision.decide(
            round,
            new SendOutcome(
                Arrays.asList(
                    SendResult.retry("down", null),
                    SendResult.unavailable("not sent: an earlier event of its aggregate failed"),
                    SendResult.retry("down", null)),
                false,
                false,
                heldBehind),
            false);

    assertThat(decided.outage).as("two sent, both the same retry: an outage").isEqualTo("down");
    assertThat(kinds(decided)).containsOnly(Ack.Kind.RELEASE);
  }

  @Test
  void a_uniform_retry_with_a_delay_keeps_the_delay() {
    RoundDecision.Decided decided =
        decideRound(
            decision(false, false, false, 3),
            List.of(claimed(1, "A", 0, 1), claimed(2, "B", 0, 1)),
            outcome("retry after 2s", 2));

    assertThat(kinds(decided)).containsExactly(Ack.Kind.RETRY, Ack.Kind.RETRY);
    assertThat(decided.acks).allSatisfy(a -> assertThat(a.delayMicros()).isEqualTo(2_000_000));
    assertThat(decided.outage).isNull();
  }

  @Test
  void a_down_destination_holds_its_events_together_and_says_so_once() {
    RoundDecision.Decided decided =
        decideRound(
            decision(true, false, false, 3),
            List.of(claimed(1, "A", 0, 1), claimed(2, "B", 0, 1), claimed(3, "C", 0, 1)),
            arrived(
                SendResult.unavailable("down", "endpoint x"),
                SendResult.delivered(),
                SendResult.unavailable("down", "endpoint x")));

    assertThat(kinds(decided)).containsExactly(Ack.Kind.HOLD, Ack.Kind.PUBLISHED, Ack.Kind.HOLD);
    assertThat(decided.acks.get(0).delayMicros()).isEqualTo(decided.acks.get(2).delayMicros());
    assertThat(notices(decided)).containsExactly("published B0", "down endpoint x 2");
  }

  @Test
  void unreadable_rows_are_dead_and_expired_rows_expired_before_any_send() {
    RoundDecision decision = decision(true, false, false, 3);
    ClaimedEvent expired = ClaimedEvent.of(2, 1, true, event("B", 0));
    RoundDecision.Round round =
        decision.prepare(
            List.of(ClaimedEvent.unreadable(1, 1, "Order", "A", "bad headers"), expired));

    assertThat(kinds(round.prepared)).containsExactly(Ack.Kind.DEAD, Ack.Kind.EXPIRED);
    assertThat(round.sendable).isEmpty();
    assertThat(notices(round.prepared)).containsExactly("expired B0");
  }

  /**
   * Ordered mode: whatever the transport answered for the events after an aggregate's first
   * failure, they go back uncharged, and the other aggregates are not touched.
   */
  @ParameterizedTest(name = "first failure: {0}")
  @CsvSource({"retry", "reject", "unavailable", "timed out"})
  void in_ordered_mode_the_rest_of_a_run_goes_back_uncharged_after_a_failure(String failure) {
    RoundDecision decision = decision(true, false, true, 3);
    RoundDecision.Round round =
        decision.prepare(
            List.of(
                claimed(1, "A", 0, 1),
                claimed(2, "A", 1, 1),
                claimed(3, "B", 0, 1),
                claimed(4, "A", 2, 1),
                claimed(5, "A", 3, 1)));
    List<SendResult> results =
        Arrays.asList(
            SendResult.delivered(),
            result(failure),
            SendResult.delivered(),
            SendResult.retry("held back behind A1", null),
            SendResult.unavailable(
                "not sent: an earlier event of its aggregate was not delivered"));
    BitSet heldBehind = new BitSet();
    heldBehind.set(4);

    RoundDecision.Decided decided =
        decision.decide(
            round, new SendOutcome(results, failure.equals("timed out"), false, heldBehind), false);

    assertThat(kinds(decided).subList(3, 5)).containsExactly(Ack.Kind.RELEASE, Ack.Kind.RELEASE);
    assertThat(decided.acks.subList(3, 5)).noneMatch(Ack::charged);
    assertThat(kinds(decided).get(0)).isEqualTo(Ack.Kind.PUBLISHED);
    assertThat(kinds(decided).get(2)).isEqualTo(Ack.Kind.PUBLISHED);
    assertThat(notices(decided)).doesNotContain("retried A2", "retried A3");
  }

  @Test
  void an_unreadable_row_holds_back_the_rest_of_its_run() {
    RoundDecision decision = decision(true, false, true, 3);
    RoundDecision.Round round =
        decision.prepare(
            List.of(
                ClaimedEvent.unreadable(1, 1, "Order", "A", "bad headers"),
                claimed(2, "A", 1, 1),
                claimed(3, "B", 0, 1)));

    assertThat(kinds(round.prepared)).containsExactly(Ack.Kind.DEAD, Ack.Kind.RELEASE);
    assertThat(round.sendable).extracting(ClaimedEvent::seq).containsExactly(3L);
  }

  @Test
  void unordered_a_transport_without_order_gets_each_result_as_given() {
    RoundDecision.Decided decided =
        decideRound(
            decision(true, false, false, 3),
            List.of(claimed(1, "A", 0, 1), claimed(2, "A", 1, 1)),
            arrived(SendResult.reject("bad"), SendResult.retry("own failure", null)));

    assertThat(kinds(decided)).containsExactly(Ack.Kind.DEAD, Ack.Kind.RETRY);
    assertThat(decided.acks.get(1).charged()).isTrue();
  }

  @Test
  void unordered_a_transport_keeping_order_gets_its_held_back_events_back_uncharged() {
    RoundDecision.Decided decided =
        decideRound(
            decision(true, true, false, 3),
            List.of(claimed(1, "A", 0, 1), claimed(2, "A", 1, 1)),
            arrived(SendResult.reject("bad"), SendResult.retry("not sent: A0 failed", null)));

    assertThat(kinds(decided)).containsExactly(Ack.Kind.DEAD, Ack.Kind.RELEASE);
    assertThat(decided.acks.get(1).charged()).isFalse();
  }

  @Test
  void an_event_delivered_behind_a_failure_is_recorded_as_delivered() {
    RoundDecision.Decided decided =
        decideRound(
            decision(true, true, true, 3),
            List.of(claimed(1, "A", 0, 1), claimed(2, "A", 1, 1)),
            arrived(SendResult.reject("bad"), SendResult.delivered()));

    // The transport broke its promise; what it delivered is the truth the table must record.
    assertThat(kinds(decided)).containsExactly(Ack.Kind.DEAD, Ack.Kind.PUBLISHED);
  }

  // ------------------------------------------------ a round decided in parts (results arriving)

  @Test
  void a_round_is_decided_in_parts_as_its_results_arrive() {
    RoundDecision decision = decision(true, false, false, 3);
    RoundDecision.Round round =
        decision.prepare(
            List.of(claimed(1, "A", 0, 1), claimed(2, "B", 0, 1), claimed(3, "C", 0, 1)));

    RoundDecision.Decided decided =
        decision.decide(round, arrived(SendResult.delivered(), null, null), false);

    assertThat(kinds(decided)).containsExactly(Ack.Kind.PUBLISHED);
    assertThat(round.undecided()).isEqualTo(2);
    assertThat(round.settled()).isFalse();

    decided =
        decision.decide(
            round, arrived(SendResult.delivered(), null, SendResult.reject("bad")), false);

    assertThat(decided.acks).extracting(Ack::seq).containsExactly(3L);
    assertThat(kinds(decided)).containsExactly(Ack.Kind.DEAD);

    decided =
        decision.decide(
            round,
            timedOut(
                SendResult.delivered(),
                SendResult.unavailable("send timed out after PT10S: not confirmed"),
                SendResult.reject("bad")),
            false);

    assertThat(decided.acks).extracting(Ack::seq).containsExactly(2L);
    assertThat(kinds(decided)).containsExactly(Ack.Kind.RELEASE);
    assertThat(round.settled()).isTrue();
  }

  /**
   * Order is guarded: a later event's result waits for every earlier one of its aggregate, since
   * one of those may still stop it; the other aggregates go on.
   */
  @Test
  void a_later_result_of_an_aggregate_waits_for_the_earlier_ones() {
    RoundDecision decision = decision(true, true, true, 3);
    RoundDecision.Round round =
        decision.prepare(
            List.of(claimed(1, "A", 0, 1), claimed(2, "A", 1, 1), claimed(3, "B", 0, 1)));

    RoundDecision.Decided decided =
        decision.decide(
            round, arrived(null, SendResult.delivered(), SendResult.delivered()), false);

    assertThat(decided.acks).extracting(Ack::seq).containsExactly(3L);

    decided =
        decision.decide(
            round,
            arrived(
                SendResult.retry("A0 failed", null),
                SendResult.retry("not sent: an earlier event failed", null),
                SendResult.delivered()),
            false);

    assertThat(kinds(decided)).containsExactly(Ack.Kind.RETRY, Ack.Kind.RELEASE);
    assertThat(decided.acks.get(0).charged()).isTrue();
    assertThat(decided.acks.get(1).charged()).isFalse();
  }

  /**
   * The rest of a batch whose other events the transport answered: a send that then times out is
   * its destination's trouble, handed back uncharged, and trips no transport-wide outage.
   */
  @Test
  void a_late_part_of_an_answered_round_is_no_outage() {
    RoundDecision decision = decision(true, false, false, 3);
    RoundDecision.Round round =
        decision.prepare(List.of(claimed(1, "A", 0, 1), claimed(2, "B", 0, 1)));
    RoundDecision.Decided decided =
        decision.decide(round, arrived(SendResult.delivered(), null), false);
    assertThat(decided.answered).isTrue();

    decided =
        decision.decide(
            round,
            timedOut(
                SendResult.delivered(),
                SendResult.unavailable("send timed out after PT10S: not confirmed")),
            false);

    assertThat(kinds(decided)).containsExactly(Ack.Kind.RELEASE);
    assertThat(decided.acks.get(0).charged()).isFalse();
    assertThat(decided.outage).isNull();
    assertThat(decided.answered).isFalse();
  }

  private RoundDecision decision(
      boolean classifies, boolean keepsOrder, boolean ordered, int maxAttempts) {
    RelaySettings settings =
        new RelaySettings(
            "test",
            100,
            ordered,
            Duration.ofSeconds(30),
            Duration.ofSeconds(10),
            maxAttempts,
            3,
            false,
            Duration.ofMinutes(1),
            false,
            CLOCK);
    return new RoundDecision(
        settings,
        new Backoff(Duration.ofSeconds(1), RETRY_CAP, () -> 0.5),
        new DestinationOutages(
            CLOCK, new Backoff(Duration.ofSeconds(1), RETRY_CAP, () -> 0.5), () -> 0.5),
        listener,
        classifies,
        new TransportConduct("test", "TestTransport", keepsOrder, listener));
  }

  /** Prepares the claimed events as one round and decides it on the outcome, not probing. */
  private static RoundDecision.Decided decideRound(
      RoundDecision decision, List<ClaimedEvent> claimed, SendOutcome outcome) {
    return decision.decide(decision.prepare(claimed), outcome, false);
  }

  private static ClaimedEvent claimed(long seq, String aggregate, int n, int attempt) {
    return ClaimedEvent.of(seq, attempt, false, event(aggregate, n));
  }

  private static OutboxEvent event(String aggregate, int n) {
    return OutboxEvent.builder("Order", aggregate, "Placed")
        .payload("{}")
        .header("n", Integer.toString(n))
        .occurredAt(CLOCK.instant())
        .build();
  }

  /** The results arrived so far (null: still under way). */
  private static SendOutcome arrived(SendResult... results) {
    return new SendOutcome(Arrays.asList(results), false, false);
  }

  /** The results when the time limit passed. */
  private static SendOutcome timedOut(SendResult... results) {
    return new SendOutcome(Arrays.asList(results), true, false);
  }

  private static SendOutcome outcome(String result, int size) {
    List<SendResult> results = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      results.add(result(result));
    }
    return new SendOutcome(results, result.equals("timed out"), false);
  }

  private static SendResult result(String name) {
    switch (name) {
      case "delivered":
        return SendResult.delivered();
      case "reject":
        return SendResult.reject("bad");
      case "retry":
        return SendResult.retry("broker hiccup", null);
      case "uncertain":
        return SendResult.uncertain("no answer: connection reset");
      case "retry after 2s":
        return SendResult.retry("busy", Duration.ofSeconds(2));
      case "retry after 1h":
        return SendResult.retry("busy", Duration.ofHours(1));
      case "unavailable":
        return SendResult.unavailable("broker down");
      case "unavailable scoped":
        return SendResult.unavailable("endpoint down", "endpoint x");
      case "timed out":
        // What the sender makes of an unconfirmed event when the time limit passed.
        return SendResult.unavailable("send timed out after PT10S: not confirmed");
      default:
        throw new IllegalArgumentException(name);
    }
  }

  private static List<Ack.Kind> kinds(RoundDecision.Decided decided) {
    return decided.acks.stream().map(Ack::kind).collect(Collectors.toList());
  }

  private List<String> notices(RoundDecision.Decided decided) {
    decided.notices.forEach(Runnable::run);
    return heard;
  }
}
