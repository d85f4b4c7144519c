package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.SendResult;
import dev.outboxkit.jdbc.internal.EngineAccess;
import dev.outboxkit.testing.RecordingTransport;
import dev.outboxkit.testkit.logging.LogCapture;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Event fields at the limits {@link OutboxEvent} accepts come back unchanged from every database,
 * through append, claim and send; and text from rows written by other tools cannot forge log lines.
 */
@ParameterizedClass(name = "{0}", allowZeroInvocations = true)
@MethodSource("flavors")
class EventFieldsContractTest extends RelayDatabaseTest {
  private static final String EVENT_COLUMNS = EngineAccess.eventColumns();

  /** One character outside the Basic Multilingual Plane: two UTF-16 units, four UTF-8 bytes. */
  private static final String ROCKET = "\uD83D\uDE80";

  private static OutboxEvent occurredAndExpiring(String id, Instant occurred, Instant expires) {
    return OutboxEvent.builder("Order", id, "OrderPlaced")
        .occurredAt(occurred)
        .expiresAt(expires)
        .payload("{}")
        .build();
  }

  private List<OutboxEvent> readAll() throws SQLException {
    List<OutboxEvent> events = new ArrayList<>();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT " + EVENT_COLUMNS + " FROM outbox_event ORDER BY seq")) {
      while (rs.next()) {
        events.add(EngineAccess.readEvent(rs, sql()));
      }
    }
    return events;
  }

  private void appendAll(OutboxEvent... events) throws SQLException {
    try (Connection c = transaction()) {
      Outbox.appendAll(c, List.of(events));
      c.commit();
    }
  }

  @Test
  void identifiers_of_the_longest_length_in_emoji_are_stored_claimed_and_sent_unchanged()
      throws Exception {
    String longest = ROCKET.repeat(OutboxEvent.MAX_FIELD_LENGTH);
    OutboxEvent e =
        OutboxEvent.builder(longest, longest, longest)
            .destination(longest)
            .tenant(longest)
            .payload("{}")
            .build();
    OutboxEvent twoHundred =
        OutboxEvent.builder("Order", ROCKET.repeat(200), "OrderPlaced").payload("{}").build();
    appendAll(e, twoHundred);

    assertThat(readAll()).containsExactly(e, twoHundred);
    assertThat(count("SELECT COUNT(*) FROM outbox_event WHERE aggregate_id = '" + longest + "'"))
        .as("found by the stored text")
        .isEqualTo(1);
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay = relay(transport, "emoji").build()) {
      assertThat(relay.drain()).isEqualTo(2);
    }
    assertThat(transport.deliveredEvents()).containsExactly(e, twoHundred);
    assertThat(transport.deliveredEvents().get(1).aggregateId()).isEqualTo(ROCKET.repeat(200));
  }

  @Test
  void the_time_limits_themselves_are_stored_and_read_back() throws Exception {
    OutboxEvent widest =
        occurredAndExpiring("widest", OutboxEvent.EARLIEST_INSTANT, OutboxEvent.LATEST_INSTANT);
    OutboxEvent expired =
        occurredAndExpiring("expired", OutboxEvent.LATEST_INSTANT, OutboxEvent.EARLIEST_INSTANT);
    OutboxEvent longestDelay =
        OutboxEvent.builder("Order", "later", "OrderPlaced")
            .delay(OutboxEvent.MAX_DELAY)
            .payload("{}")
            .build();
    appendAll(widest, expired, longestDelay);

    assertThat(readAll()).containsExactly(widest, expired, longestDelay);
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT available_at FROM outbox_event WHERE id = ?")) {
      sql().setUuid(ps, 1, longestDelay.id());
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        Duration held = Duration.between(Instant.now(), sql().getInstant(rs, "available_at"));
        assertThat(held)
            .as("available_at is the database's now plus the delay")
            .isBetween(OutboxEvent.MAX_DELAY.minusDays(1), OutboxEvent.MAX_DELAY.plusDays(1));
      }
    }
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay = relay(transport, "limits").build()) {
      relay.drain();
    }
    assertThat(transport.deliveredEvents()).containsExactly(widest);
    assertThat(transport.deliveredEvents().get(0).expiresAt()).contains(OutboxEvent.LATEST_INSTANT);
    assertThat(row(expired.id())).containsEntry("status", "EXPIRED");
    assertThat(row(longestDelay.id())).containsEntry("status", "PENDING");
  }

  @Test
  void text_from_rows_written_by_other_tools_cannot_forge_log_lines() throws Exception {
    OutboxEvent dead = OutboxEvent.builder("Order", "o-1", "OrderPlaced").payload("{}").build();
    OutboxEvent unreadable =
        OutboxEvent.builder("Order", "o-2", "OrderPlaced").payload("{}").build();
    appendAll(dead, unreadable);
    // What another tool could write with plain SQL: line breaks in every identity column, and in
    // a header name (the headers column is a JSON object; \r and \n are its escapes).
    String forgedType = "Order\r\n[relay] INFO forged-type";
    String forgedId = "o-1\n[relay] WARN forged-id";
    String forgedEventType = "OrderPlaced\r[relay] ERROR forged-event";
    try (Connection c = ds.getConnection()) {
      try (PreparedStatement ps =
          c.prepareStatement(
              "UPDATE outbox_event SET aggregate_type = ?, aggregate_id = ?, event_type = ?"
                  + " WHERE id = ?")) {
        ps.setString(1, forgedType);
        ps.setString(2, forgedId);
        ps.setString(3, forgedEventType);
        sql().setUuid(ps, 4, dead.id());
        assertThat(ps.executeUpdate()).isEqualTo(1);
      }
      try (PreparedStatement ps =
          c.prepareStatement("UPDATE outbox_event SET headers = ? WHERE id = ?")) {
        ps.setString(1, "{\"x\\r\\n[relay] ERROR forged-header\":\"v\"}");
        sql().setUuid(ps, 2, unreadable.id());
        assertThat(ps.executeUpdate()).isEqualTo(1);
      }
    }
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(m -> SendResult.reject("refused\r\n[relay] INFO forged-reason"));

    List<LogCapture.Line> lines;
    try (LogCapture capture = LogCapture.start();
        OutboxRelay relay = relay(transport, "forge").build()) {
      relay.drain();
      lines = capture.lines();
    }

    assertThat(row(dead.id())).containsEntry("status", "DEAD");
    assertThat(row(unreadable.id())).containsEntry("status", "DEAD");
    assertThat(lines).isNotEmpty();
    for (LogCapture.Line line : lines) {
      assertThat(line.text())
          .as("%s %s", line.level(), line.logger())
          .doesNotContain("\r")
          .doesNotContain("\n");
      assertThat(line.mdc().values())
          .as("MDC of %s", line.text())
          .noneMatch(v -> v.contains("\r") || v.contains("\n"));
    }
    assertThat(lines)
        .filteredOn(l -> l.text().contains("quarantined as DEAD"))
        .singleElement()
        .satisfies(
            l -> {
              assertThat(l.text())
                  .contains(dead.id().toString())
                  .contains("Order\\r\\n[relay] INFO forged-type")
                  .contains("o-1\\n[relay] WARN forged-id")
                  .contains("OrderPlaced\\r[relay] ERROR forged-event")
                  .contains("refused\\r\\n[relay] INFO forged-reason");
              assertThat(l.mdc())
                  .containsEntry(OutboxMdc.AGGREGATE_ID, "o-1\\n[relay] WARN forged-id");
            });
    assertThat(lines)
        .filteredOn(l -> l.text().contains("cannot be read"))
        .singleElement()
        .satisfies(l -> assertThat(l.text()).contains("x\\r\\n[relay] ERROR forged-header"));
  }
}
