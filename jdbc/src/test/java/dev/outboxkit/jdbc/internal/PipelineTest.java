package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The pipeline's decisions, one row per situation: what it observed, what it must do. */
class PipelineTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # situation                                  | ahead | healthy | covers | aheadAhead | runs | claimFail | stop | sendAhead | claimWithAck
          full batches, all well                       | true  | true    | true   | true       | false| false     | false| true      | true
          ahead is a short batch: no claim after it    | true  | true    | true   | false      | false| false     | false| true      | false
          ahead waited too long for its lease          | true  | true    | false  | true       | false| false     | false| false     | false
          round failed or outage: ahead goes back      | true  | false   | true   | true       | false| false     | false| false     | false
          claim ahead failed: ahead still sent         | true  | true    | true   | true       | false| true      | false| true      | false
          closing: ahead sent, nothing claimed         | true  | true    | true   | true       | false| false     | true | true      | false
          nothing ahead, runs: claim with the ack      | false | true    | false  | false      | true | false     | false| false     | true
          nothing ahead, runs, but unhealthy           | false | false   | false  | false      | true | false     | false| false     | false
          nothing ahead, runs, but closing             | false | true    | false  | false      | true | false     | true | false     | false
          nothing ahead, runs, claim ahead failed      | false | true    | false  | false      | true | true      | false| false     | false
          nothing ahead, no runs: the pipeline ends    | false | true    | false  | false      | false| false     | false| false     | false
          """)
  void plans_the_batch_claimed_ahead_and_the_claim_with_the_acknowledgement(
      String situation,
      boolean ahead,
      boolean healthy,
      boolean covers,
      boolean aheadClaimsAhead,
      boolean runs,
      boolean claimFailed,
      boolean stopping,
      boolean sendAhead,
      boolean claimWithAck) {
    Pipeline.Plan plan =
        Pipeline.afterSend(
            new Pipeline.Observed(
                ahead, healthy, covers, aheadClaimsAhead, runs, claimFailed, stopping));

    assertThat(plan.sendAhead).as("send ahead").isEqualTo(sendAhead);
    assertThat(plan.claimWithAck).as("claim with the acknowledgement").isEqualTo(claimWithAck);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # situation                                 | failed | ahead | sendAhead | claimed | next
          the round failed                            | true   | true  | true      | false   | FAIL
          the round failed, nothing ahead             | true   | false | false     | false   | FAIL
          nothing ahead and nothing claimed           | false  | false | false     | false   | DONE
          nothing ahead, the ack claimed a batch      | false  | false | false     | true    | SEND_CLAIMED
          ahead not to be sent                        | false  | true  | false     | false   | HAND_BACK_AHEAD
          ahead sent, the ack claimed the one after   | false  | true  | true      | true    | SEND_AHEAD
          ahead sent, nothing claimed after it        | false  | true  | true      | false   | SEND_AHEAD
          """)
  void goes_on_after_the_acknowledgement(
      String situation,
      boolean failed,
      boolean ahead,
      boolean sendAhead,
      boolean claimed,
      Pipeline.Next next) {
    Pipeline.Observed seen = new Pipeline.Observed(ahead, true, true, true, false, false, false);
    Pipeline.Plan plan = new Pipeline.Plan(sendAhead, claimed);

    assertThat(Pipeline.afterAck(failed, seen, plan, claimed)).isEqualTo(next);
  }
}
