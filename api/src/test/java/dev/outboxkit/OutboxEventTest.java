package dev.outboxkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class OutboxEventTest {

  private static OutboxEvent.Builder order() {
    return OutboxEvent.builder("Order", "42", "OrderPlaced");
  }

  @Test
  void build_applies_documented_defaults() {
    Instant now = Instant.parse("2026-01-02T03:04:05.123456789Z");
    OutboxEvent e = order().payload("{}").clock(Clock.fixed(now, ZoneOffset.UTC)).build();

    assertThat(e.contentType()).isEqualTo(OutboxEvent.JSON);
    assertThat(e.schemaVersion()).isEqualTo(1);
    assertThat(e.occurredAt()).isEqualTo(Instant.parse("2026-01-02T03:04:05.123456Z"));
    assertThat(e.destination()).isEmpty();
    assertThat(e.tenant()).isEmpty();
    assertThat(e.expiresAt()).isEmpty();
    assertThat(e.delay()).isEqualTo(Duration.ZERO);
    assertThat(e.headers()).isEmpty();
    assertThat(e.payload()).isEqualTo("{}".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void id_is_a_version_7_uuid_whose_time_part_comes_from_the_clock() {
    // Ids never go backwards within a JVM, so use a clock ahead of every other test's.
    Instant now = Instant.parse("2100-06-01T00:00:00Z");
    UUID id = order().payload("{}").clock(Clock.fixed(now, ZoneOffset.UTC)).build().id();

    assertThat(id.version()).isEqualTo(7);
    assertThat(id.variant()).isEqualTo(2);
    assertThat(id.getMostSignificantBits() >>> 16).isEqualTo(now.toEpochMilli());
  }

  @Test
  void ids_from_one_clock_millisecond_are_unique_and_increasing() {
    Clock fixed = Clock.fixed(Instant.parse("2026-06-01T00:00:00Z"), ZoneOffset.UTC);
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      ids.add(order().payload("{}").clock(fixed).build().id());
    }
    Set<UUID> unique = new HashSet<>(ids);
    assertThat(unique).hasSize(ids.size());
    for (int i = 1; i < ids.size(); i++) {
      // Compare as unsigned 64-bit, the way databases order UUIDs.
      assertThat(
              Long.compareUnsigned(
                  ids.get(i - 1).getMostSignificantBits(), ids.get(i).getMostSignificantBits()))
          .isNegative();
    }
  }

  @Test
  void payload_is_copied_in_and_out() {
    byte[] bytes = {1, 2, 3};
    OutboxEvent e = order().payload(bytes, "application/octet-stream").build();
    bytes[0] = 9;
    e.payload()[1] = 9;

    assertThat(e.payload()).containsExactly(1, 2, 3);
    assertThat(e.payloadSize()).isEqualTo(3);
  }

  @Test
  void headers_keep_insertion_order_and_cannot_be_modified() {
    OutboxEvent e =
        order().payload("{}").header("b", "2").headers(Map.of("a", "1")).header("c", "ü").build();

    assertThat(e.headers())
        .containsExactly(Map.entry("b", "2"), Map.entry("a", "1"), Map.entry("c", "ü"));
    assertThatThrownBy(() -> e.headers().put("x", "y"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void blank_or_overlong_identifiers_are_refused_naming_the_field() {
    assertInvalid(() -> OutboxEvent.builder(" ", "1", "T"), "aggregateType", "blank");
    assertInvalid(() -> OutboxEvent.builder("A", null, "T"), "aggregateId", "null");
    assertInvalid(
        () -> OutboxEvent.builder("A", "1", "x".repeat(256)), "eventType", "limit is 255");
    assertInvalid(() -> order().destination(""), "destination", "blank");
    assertThat(OutboxEvent.builder("A", "x".repeat(255), "T").payload("{}").build().aggregateId())
        .hasSize(255);
  }

  @Test
  void missing_payload_is_refused_with_the_fix() {
    assertInvalid(() -> order().build(), "payload", "call payload(json)");
    assertInvalid(() -> order().payload((String) null), "payload", "null");
    assertInvalid(() -> order().payload(new byte[0], " "), "contentType", "blank");
  }

  @Test
  void header_names_must_be_tokens_and_values_single_line() {
    assertInvalid(() -> order().header("bad name", "v"), "headers", "not a token");
    assertInvalid(() -> order().header("x:y", "v"), "headers", "not a token");
    assertInvalid(() -> order().header("x", "a\r\nInjected: 1"), "headers", "line break");
    assertInvalid(() -> order().header("x", null), "headers", "null value");
  }

  @Test
  void negative_delay_and_schema_version_below_one_are_refused() {
    assertInvalid(() -> order().delay(Duration.ofSeconds(-1)), "delay", "negative");
    assertInvalid(() -> order().schemaVersion(0), "schemaVersion", "1 or more");
  }

  @Test
  void equality_covers_stored_fields_but_not_delay() {
    UUID id = UUID.randomUUID();
    Instant at = Instant.parse("2026-01-01T00:00:00Z");
    OutboxEvent a =
        order().id(id).occurredAt(at).payload("{}").delay(Duration.ofMinutes(1)).build();
    OutboxEvent b = order().id(id).occurredAt(at).payload("{}").build();
    OutboxEvent c = order().id(id).occurredAt(at).payload("{ }").build();

    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a).isNotEqualTo(c);
  }

  @Test
  void to_string_never_shows_payload_or_header_values() {
    OutboxEvent e =
        order().payload("{\"card\":\"SECRET-PAN\"}").header("auth", "SECRET-TOKEN").build();

    assertThat(e.toString()).doesNotContain("SECRET").contains("Order/42", "OrderPlaced");
  }

  private static void assertInvalid(Runnable action, String field, String messagePart) {
    assertThatThrownBy(action::run)
        .isInstanceOfSatisfying(
            InvalidEventException.class, ex -> assertThat(ex.field()).isEqualTo(field))
        .hasMessageContaining(messagePart);
  }
}
