package dev.outboxkit.testing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import dev.outboxkit.testkit.Flavor;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * The kit can fail: each fixture below is the H2 preset with one guarantee broken in its
 * statements, and the kit's test of that guarantee must fail on it (a kit that passes everything
 * proves nothing). Run through the JUnit launcher, one test each.
 */
class BrokenDialectsFailTheKitTest {
  /** Set while this class launches a fixture: Surefire must not run them as tests of their own. */
  private static volatile boolean launching;

  @Test
  void acknowledgements_without_the_owner_fence_fail_the_lease_test() {
    TestExecutionSummary summary =
        run(
            UnfencedAcknowledgements.class,
            "a_relay_whose_lease_ran_out_cannot_overwrite_the_next_owners_outcome");

    assertFailed(summary, "overwrote the next owner's");
  }

  @Test
  void a_lease_recovery_that_charges_an_attempt_fails_the_expired_lease_test() {
    TestExecutionSummary summary =
        run(
            ChargingLeaseRecovery.class,
            "an_expired_lease_goes_back_to_pending_without_charging_an_attempt");

    assertFailed(summary, "a lease that ran out is not the event's failure");
  }

  @Test
  void a_claim_that_does_not_lock_fails_the_concurrent_claims_test() {
    TestExecutionSummary summary =
        run(UnlockedClaims.class, "concurrent_relays_deliver_every_event_exactly_once");

    assertFailed(summary, "no two relays claimed the same row");
  }

  @Test
  void a_version_read_that_does_not_lock_fails_the_inbox_ordering_test() {
    TestExecutionSummary summary =
        run(
            UnlockedVersionRead.class,
            "the_inbox_judges_each_aggregates_versions_in_order_even_under_concurrency");

    assertFailed(summary, "judged by a stale version");
  }

  private static void assertFailed(TestExecutionSummary summary, String message) {
    assertThat(summary.getTestsStartedCount()).as("the kit's test ran").isEqualTo(1);
    assertThat(summary.getTestsFailedCount()).as("and failed").isEqualTo(1);
    assertThat(summary.getFailures().get(0).getException()).hasMessageContaining(message);
  }

  private static TestExecutionSummary run(Class<?> fixture, String test) {
    SummaryGeneratingListener listener = new SummaryGeneratingListener();
    launching = true;
    try {
      LauncherFactory.create()
          .execute(
              LauncherDiscoveryRequestBuilder.request()
                  .selectors(selectMethod(fixture, test))
                  .build(),
              listener);
    } finally {
      launching = false;
    }
    return listener.getSummary();
  }

  /** The H2 preset with one statement's text changed; fails if the text to change is gone. */
  static SqlDialect h2With(String statement, String from, String to) {
    SqlDialect h2 = Dialect.H2.preset();
    String sql = h2.statement(statement).orElseThrow();
    assertThat(sql).as("the %s statement to break", statement).contains(from);
    return h2.toBuilder("H2, " + statement + " broken")
        .statement(statement, sql.replace(from, to))
        .build();
  }

  /** The kit on H2 with a broken dialect, run only by this class's tests. */
  abstract static class BrokenH2 extends FlavorDialectContract {
    BrokenH2(SqlDialect dialect) {
      super(Flavor.H2, dialect);
    }

    @BeforeEach
    void onlyWhenLaunched() {
      assumeTrue(launching, "a fixture of BrokenDialectsFailTheKitTest");
    }
  }

  static class UnfencedAcknowledgements extends BrokenH2 {
    UnfencedAcknowledgements() {
      super(
          h2With(
              "markPublished",
              "lease_owner = :owner AND status = 'IN_FLIGHT'",
              "(lease_owner = :owner OR 1 = 1)"));
    }
  }

  static class ChargingLeaseRecovery extends BrokenH2 {
    ChargingLeaseRecovery() {
      super(
          h2With(
              "reclaimExpiredLeases",
              "lease_losses = lease_losses + 1",
              "lease_losses = lease_losses + 1, attempts = attempts + 1"));
    }
  }

  /**
   * The version row neither locked by its read nor by its insert (H2's MERGE locks a row it
   * matches, so the insert is a plain one that checks first).
   */
  static class UnlockedVersionRead extends BrokenH2 {
    UnlockedVersionRead() {
      super(
          h2With("inboxVersionLock", "FOR UPDATE", "").toBuilder("H2, version row unlocked")
              .statement(
                  "inboxVersionCreate",
                  "INSERT INTO {table} (consumer, aggregate_type, aggregate_id, version,"
                      + " updated_at) SELECT CAST(:consumer AS VARCHAR(200)),"
                      + " CAST(:aggregate_type AS VARCHAR(510)),"
                      + " CAST(:aggregate_id AS VARCHAR(510)), 0, CURRENT_TIMESTAMP"
                      + " WHERE NOT EXISTS (SELECT 1 FROM {table} WHERE consumer = :consumer"
                      + " AND aggregate_type = :aggregate_type AND aggregate_id = :aggregate_id)")
              .build());
    }
  }

  static class UnlockedClaims extends BrokenH2 {
    UnlockedClaims() {
      super(h2With("lockUnordered", "FOR UPDATE SKIP LOCKED", ""));
    }
  }
}
