package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.DatabaseTest;
import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.testkit.Flavor;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The claim floor on PostgreSQL, walk by walk: it passes finished events, stays below every event a
 * claim must still find, and comes back down to one that became claimable below it.
 */
class ClaimFloorTest extends DatabaseTest {
  private static final OutboxSql SQL =
      OutboxSql.of(Dialect.POSTGRESQL.preset(), TableName.of("outbox_event"));

  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }

  private long walk(ClaimFloor floor) throws SQLException {
    try (Connection c = ds.getConnection()) {
      return floor.now(c, SQL);
    }
  }

  private static OutboxEvent event(String aggregate) {
    return OutboxEvent.builder("Order", aggregate, "E").payload("{}").build();
  }

  private long append(String aggregate) throws SQLException {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      Outbox.append(c, event(aggregate));
      c.commit();
    }
    return count("SELECT max(seq) FROM outbox_event");
  }

  private void publishAll() throws SQLException {
    execute(
        "UPDATE outbox_event SET status = 'PUBLISHED', published_at = now()"
            + " WHERE status = 'PENDING'");
  }

  /** What a floored scanning claim finds, rolled back. */
  private List<ClaimedEvent> claim(long floor, ClaimStrategy.Mode mode) throws SQLException {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try {
        return new ReturningClaim(true)
            .claim(c, SQL, "floor@test/1", 100, mode, Duration.ofMinutes(1), floor)
            .events;
      } finally {
        c.rollback();
      }
    }
  }

  @Test
  void an_append_committed_after_the_floor_passed_its_seq_is_found_after_the_next_walk()
      throws Exception {
    ClaimFloor floor = new ClaimFloor(false, 0, 0);
    try (Connection late = ds.getConnection()) {
      late.setAutoCommit(false);
      Outbox.append(late, event("late")); // takes a seq, commits only at the end
      long after = append("after");
      publishAll();
      assertThat(walk(floor)).as("first walk: no floor yet").isZero();
      long passed = walk(floor);
      assertThat(passed).as("nothing PENDING: one past the highest seq").isEqualTo(after + 1);
      assertThat(claim(passed, ClaimStrategy.Mode.UNORDERED)).isEmpty();

      late.commit();
      long lateSeq = count("SELECT seq FROM outbox_event WHERE aggregate_id = 'late'");
      assertThat(lateSeq).isLessThan(passed);
      long next = walk(floor);
      assertThat(next).isLessThanOrEqualTo(lateSeq);
      assertThat(claim(next, ClaimStrategy.Mode.UNORDERED))
          .extracting(ClaimedEvent::seq)
          .containsExactly(lateSeq);
    }
  }

  @Test
  void the_floor_stays_below_events_coming_due_and_in_ordered_mode_passes_those_behind_dead()
      throws Exception {
    ClaimFloor ordered = new ClaimFloor(true, 0, 0);
    ClaimFloor unordered = new ClaimFloor(false, 0, 0);
    long dead = append("stuck");
    execute("UPDATE outbox_event SET status = 'DEAD' WHERE seq = " + dead);
    long behindDead = append("stuck");
    long soon = append("soon");
    execute(
        "UPDATE outbox_event SET available_at = now() + INTERVAL '5 seconds' WHERE seq = " + soon);
    long later = append("later");
    execute(
        "UPDATE outbox_event SET available_at = now() + INTERVAL '1 hour' WHERE seq = " + later);
    long fresh = append("fresh");
    walk(ordered);
    walk(unordered);

    assertThat(walk(unordered))
        .as("unordered: the event behind the DEAD one is claimable")
        .isEqualTo(behindDead);
    assertThat(walk(ordered))
        .as("ordered: behind DEAD is passed, the one due in 5 s is not")
        .isEqualTo(soon);
    assertThat(claim(walk(ordered), ClaimStrategy.Mode.ORDERED))
        .extracting(ClaimedEvent::seq)
        .containsExactly(fresh);

    execute("UPDATE outbox_event SET status = 'PENDING' WHERE seq = " + dead); // replayed
    long replayed = walk(ordered);
    assertThat(replayed).isLessThanOrEqualTo(dead);
    assertThat(claim(replayed, ClaimStrategy.Mode.ORDERED))
        .extracting(ClaimedEvent::seq)
        .containsExactlyInAnyOrder(dead, fresh);
  }

  @Test
  void dropping_the_floor_reads_the_whole_index_until_two_walks_set_it_again() throws Exception {
    ClaimFloor floor = new ClaimFloor(false, 0, 0);
    append("a");
    publishAll();
    walk(floor);
    assertThat(walk(floor)).isPositive();

    assertThat(floor.drop()).isTrue();
    assertThat(walk(floor)).isZero();
    assertThat(floor.drop()).isFalse();
  }
}
