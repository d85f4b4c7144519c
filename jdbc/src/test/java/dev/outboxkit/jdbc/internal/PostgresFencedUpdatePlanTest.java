package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.DatabaseTest;
import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.testkit.Flavor;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The statements that change a batch of rows found by seq (claiming a run, acknowledging, holding,
 * releasing) read them by primary key, never by walking a partial index whose predicate their
 * status test matches. Such a walk looks cheap when statistics say the index is small, but under a
 * held xmin horizon the index keeps an entry for every row version that ever matched (300,000 after
 * ten minutes at 500 events/s): 120 ms an acknowledgement and 317 ms a run's marking, against 0.2
 * ms by primary key.
 */
class PostgresFencedUpdatePlanTest extends DatabaseTest {

  private static final OutboxSql SQL =
      OutboxSql.of(Dialect.POSTGRESQL.preset(), TableName.of("outbox_event"));
  private static final String OWNER = "plan@test/1";

  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }

  @Test
  void updates_of_rows_found_by_seq_read_the_primary_key_whatever_the_statistics()
      throws Exception {
    // 150,000 rows: enough for a primary key of three levels, whose probe then costs more than a
    // walk of a partial index that statistics say holds a row or two.
    execute(
        "INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type, payload,"
            + " content_type, occurred_at, available_at, status, published_at)"
            + " SELECT gen_random_uuid(), 'Order', 'a' || g, 'E', '\\x00'::bytea,"
            + " 'application/json', now(), now(), 'PUBLISHED', now()"
            + " FROM generate_series(1, 150000) g");
    // Analyzed while nothing was in flight (a quiet moment), then one row IN_FLIGHT: its retry or
    // quarantine, by seq.
    execute("ANALYZE outbox_event");
    move(1, 1, "IN_FLIGHT");
    List<Long> one = seqs("IN_FLIGHT");
    for (Statement outcome : List.of(Statements.MARK_RETRY, Statements.MARK_DEAD)) {
      assertThat(plan(outcome, one, false)).as(outcome.name()).satisfies(this::byPrimaryKey);
    }

    // 100 rows IN_FLIGHT and 100 PENDING: a batch's acknowledgement, and a run's marking.
    move(2, 100, "IN_FLIGHT");
    move(101, 200, "PENDING");
    execute("ANALYZE outbox_event");
    List<Long> inFlight = seqs("IN_FLIGHT");
    List<Long> pending = seqs("PENDING");
    List<Statement> acks =
        List.of(
            Statements.MARK_PUBLISHED,
            Statements.MARK_EXPIRED,
            Statements.MARK_HELD,
            Statements.RELEASE,
            Statements.DELETE_PUBLISHED);
    for (boolean inClaim : new boolean[] {false, true}) {
      for (Statement ack : acks) {
        assertThat(plan(ack, inFlight, inClaim)).as(ack.name()).satisfies(this::byPrimaryKey);
      }
      assertThat(plan(Statements.MARK_CLAIMED, pending, inClaim))
          .as("markClaimed")
          .satisfies(this::byPrimaryKey);
    }
  }

  /** Rows {@code from} to {@code to} (by seq) take the status, leased to OWNER if IN_FLIGHT. */
  private void move(long from, long to, String status) throws SQLException {
    boolean leased = status.equals("IN_FLIGHT");
    execute(
        "UPDATE outbox_event SET status = '"
            + status
            + "', published_at = NULL, lease_owner = "
            + (leased ? "'" + OWNER + "'" : "NULL")
            + ", lease_until = "
            + (leased ? "now() + interval '1 minute'" : "NULL")
            + " WHERE seq BETWEEN "
            + from
            + " AND "
            + to);
  }

  private void byPrimaryKey(String plan) {
    assertThat(plan).contains("outbox_event_pkey").doesNotContain("_idx");
  }

  private List<Long> seqs(String status) throws SQLException {
    List<Long> seqs = new ArrayList<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT seq FROM outbox_event WHERE status = ? ORDER BY seq")) {
      ps.setString(1, status);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          seqs.add(rs.getLong(1));
        }
      }
    }
    return seqs;
  }

  /**
   * EXPLAIN of the statement on these rows (one row: the first), inside a claim transaction's
   * settings or not.
   */
  private String plan(Statement st, List<Long> seqs, boolean inClaim) throws SQLException {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      if (inClaim) {
        try (java.sql.Statement s = c.createStatement()) {
          s.execute(SQL.text(Statements.BEFORE_CLAIM));
        }
      }
      NamedSql.Rendered r =
          st.params().contains("seqs") ? SQL.rendered(st, seqs.size()) : SQL.rendered(st);
      StringBuilder plan = new StringBuilder();
      try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + r.sql)) {
        for (int i : r.positions("seqs")) {
          for (int v = 0; v < seqs.size(); v++) {
            ps.setLong(i + v, seqs.get(v));
          }
        }
        for (int i : r.positions("seq")) {
          ps.setLong(i, seqs.get(0));
        }
        for (String flag : List.of("charge", "uncertain")) {
          for (int i : r.positions(flag)) {
            ps.setInt(i, 1);
          }
        }
        for (int i : r.positions("owner")) {
          ps.setString(i, OWNER);
        }
        for (String micros : List.of("lease", "delay")) {
          for (int i : r.positions(micros)) {
            ps.setLong(i, 60_000_000);
          }
        }
        for (int i : r.positions("error")) {
          ps.setString(i, "held");
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            plan.append(rs.getString(1)).append('\n');
          }
        }
      }
      c.rollback();
      return plan.toString();
    }
  }
}
