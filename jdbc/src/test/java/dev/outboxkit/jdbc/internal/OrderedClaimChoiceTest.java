package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OrderedClaimChoiceTest {
  private static final long MS = 1_000_000;

  /** Runs {@code claims} scarce claims at these costs; returns how many were sparse. */
  private static int run(OrderedClaimChoice choice, int claims, long sparseCost, long scanCost) {
    int sparse = 0;
    for (int i = 0; i < claims; i++) {
      boolean s = choice.sparse();
      sparse += s ? 1 : 0;
      choice.took(s, s ? sparseCost : scanCost);
    }
    return sparse;
  }

  @Test
  void measures_the_sparse_claim_first_then_the_scanning_one_then_runs_the_cheaper() {
    OrderedClaimChoice choice = new OrderedClaimChoice();
    assertThat(choice.sparse()).isTrue();
    choice.took(true, MS);
    assertThat(choice.sparse()).isFalse();
    choice.took(false, 10 * MS);
    assertThat(choice.sparse()).isTrue();
    // Sparse at 1 ms, scanning at 10 ms: the scanning claim is tried again after 200 ms of sparse.
    assertThat(run(choice, 201, MS, 10 * MS)).isEqualTo(200);
  }

  @Test
  void a_scanning_claim_measured_first_is_followed_by_the_sparse_one_not_by_another_scan() {
    OrderedClaimChoice choice = new OrderedClaimChoice();
    choice.took(
        false, 10 * MS); // the scanning claim that came back short, before heads were scarce
    assertThat(choice.sparse()).isTrue();
    choice.took(true, MS);
    assertThat(run(choice, 150, MS, 10 * MS)).isEqualTo(150);
  }

  @Test
  void a_sparse_claim_that_became_expensive_is_left_and_tried_again_at_a_bounded_share() {
    OrderedClaimChoice choice = new OrderedClaimChoice();
    run(choice, 2, MS, 10 * MS); // sparse cheap, as usually
    // The horizon is held: the sparse claim now takes 1.3 s, the scanning one 20 ms.
    int sparse = run(choice, 10_000, 1_300 * MS, 20 * MS);
    long spent = sparse * 1_300 * MS + (10_000L - sparse) * 20 * MS;
    // About a twentieth once switched; the first expensive claims before the switch count too.
    assertThat(sparse * 1_300 * MS).isLessThanOrEqualTo(spent / 10);
    assertThat(sparse).isGreaterThan(2); // still tried, so a recovery would be seen
  }

  @Test
  void the_choice_returns_to_the_sparse_claim_once_it_is_cheap_again() {
    OrderedClaimChoice choice = new OrderedClaimChoice();
    run(choice, 200, 1_300 * MS, 20 * MS);
    assertThat(choice.sparse()).isFalse();
    run(choice, 2_000, MS, 20 * MS); // vacuum ran: sparse is cheap again
    assertThat(run(choice, 100, MS, 20 * MS)).isGreaterThan(95);
  }
}
