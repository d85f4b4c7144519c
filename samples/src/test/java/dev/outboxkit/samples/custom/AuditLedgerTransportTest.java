package dev.outboxkit.samples.custom;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.DeadEvent;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxSchema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The custom transport behind a real relay, on an in-memory H2 database. */
class AuditLedgerTransportTest {
  @TempDir Path dir;
  private JdbcConnectionPool ds;
  private OutboxAdmin admin;

  @BeforeEach
  void createDatabase() throws Exception {
    ds = JdbcConnectionPool.create("jdbc:h2:mem:ledger-" + System.nanoTime(), "sa", "");
    try (Connection c = ds.getConnection()) {
      OutboxSchema.create(c);
    }
    admin = OutboxAdmin.create(ds);
  }

  @AfterEach
  void closeDatabase() {
    ds.dispose();
  }

  @Test
  void send_writes_one_json_line_per_event_in_append_order() throws Exception {
    Path ledger = dir.resolve("audit.jsonl");
    List<OutboxEvent> events =
        List.of(
            event("a-1", "{\"amount\":10}"),
            event("a-1", "{\n  \"amount\": 20\n}"), // pretty-printed: still one line
            event("a-1", "{\"amount\":30}"));
    append(events);

    try (OutboxRelay relay = relay(ledger)) {
      assertThat(relay.drain()).isEqualTo(3);
    }

    assertThat(Files.readAllLines(ledger))
        .containsExactly(
            "{\"id\":\"" + events.get(0).id() + "\",\"data\":{\"amount\":10}}",
            "{\"id\":\"" + events.get(1).id() + "\",\"data\":{   \"amount\": 20 }}",
            "{\"id\":\"" + events.get(2).id() + "\",\"data\":{\"amount\":30}}");
    assertThat(admin.count(EventStatus.PUBLISHED)).isEqualTo(3);
  }

  @Test
  void send_rejects_a_payload_that_is_not_json_so_the_event_goes_dead() throws Exception {
    Path ledger = dir.resolve("audit.jsonl");
    OutboxEvent text =
        OutboxEvent.builder("Account", "a-2", "NoteAdded")
            .payload("hello".getBytes(StandardCharsets.UTF_8), "text/plain")
            .build();
    append(List.of(text, event("a-3", "{\"amount\":5}")));

    try (OutboxRelay relay = relay(ledger)) {
      relay.drain();
    }

    List<DeadEvent> dead = admin.listDead(0, 10);
    assertThat(dead).hasSize(1);
    assertThat(dead.get(0).id()).isEqualTo(text.id());
    assertThat(dead.get(0).attempts()).isEqualTo(1); // rejected: no retries
    assertThat(dead.get(0).lastError()).contains("JSON only");
    assertThat(Files.readAllLines(ledger)).hasSize(1).allMatch(l -> !l.contains(text.id() + ""));
  }

  @Test
  void send_retries_while_the_ledger_cannot_be_written_and_delivers_once_it_can() throws Exception {
    Path ledger = dir.resolve("not-yet").resolve("audit.jsonl");
    OutboxEvent event = event("a-4", "{\"amount\":7}");
    append(List.of(event));

    try (OutboxRelay relay = relay(ledger)) {
      relay.runOnce(); // the folder is missing: the write fails
      assertThat(admin.count(EventStatus.PENDING)).isEqualTo(1);
      assertThat(admin.count(EventStatus.DEAD)).isZero();

      Files.createDirectory(ledger.getParent());
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (admin.count(EventStatus.PUBLISHED) == 0 && System.nanoTime() < deadline) {
        relay.runOnce(); // retried after the (short) backoff
        Thread.sleep(5);
      }
    }

    assertThat(admin.count(EventStatus.PUBLISHED)).isEqualTo(1);
    assertThat(Files.readAllLines(ledger)).singleElement().asString().contains(event.id() + "");
  }

  private OutboxRelay relay(Path ledger) {
    return OutboxRelay.builder(ds, new AuditLedgerTransport(ledger))
        .retryBackoff(Duration.ofMillis(1), Duration.ofMillis(1))
        .outageBackoff(Duration.ofMillis(1), Duration.ofMillis(1))
        .build();
  }

  private static OutboxEvent event(String account, String json) {
    return OutboxEvent.builder("Account", account, "AmountBooked").payload(json).build();
  }

  private void append(List<OutboxEvent> events) throws Exception {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      Outbox.appendAll(c, events);
      c.commit();
    }
  }
}
