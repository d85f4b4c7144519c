package dev.outboxkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
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
    assertThat(e.aggregateVersion()).isEmpty();
    assertThat(e.supersedeKey()).isEmpty();
    assertThat(e.priority()).isZero();
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
  void aggregate_version_below_one_and_a_blank_or_overlong_supersede_key_are_refused() {
    assertInvalid(() -> order().aggregateVersion(0), "aggregateVersion", "1 or more");
    assertInvalid(() -> order().aggregateVersion(-5), "aggregateVersion", "from 1");
    assertInvalid(() -> order().supersedeKey(" "), "supersedeKey", "blank");
    assertInvalid(() -> order().supersedeKey(null), "supersedeKey", "null");
    assertInvalid(() -> order().supersedeKey("k".repeat(256)), "supersedeKey", "255");
  }

  @Test
  void aggregate_version_and_supersede_key_are_kept_and_compared() {
    UUID id = UUID.randomUUID();
    Instant at = Instant.parse("2026-01-01T00:00:00Z");
    OutboxEvent a =
        order().id(id).occurredAt(at).payload("{}").aggregateVersion(7).supersedeKey("k").build();

    assertThat(a.aggregateVersion()).hasValue(7);
    assertThat(a.supersedeKey()).hasValue("k");
    assertThat(a)
        .isNotEqualTo(order().id(id).occurredAt(at).payload("{}").supersedeKey("k").build());
    assertThat(a)
        .isNotEqualTo(order().id(id).occurredAt(at).payload("{}").aggregateVersion(7).build());
  }

  @Test
  void priority_outside_minus_nine_to_nine_is_refused_and_its_bounds_are_kept() {
    assertInvalid(() -> order().priority(10), "priority", "from -9 to 9, was 10");
    assertInvalid(() -> order().priority(-10), "priority", "was -10");
    assertInvalid(() -> order().priority(Integer.MIN_VALUE), "priority", "higher number");

    assertThat(order().payload("{}").priority(OutboxEvent.MAX_PRIORITY).build().priority())
        .isEqualTo(9);
    assertThat(order().payload("{}").priority(OutboxEvent.MIN_PRIORITY).build().priority())
        .isEqualTo(-9);
  }

  @Test
  void priority_is_compared() {
    UUID id = UUID.randomUUID();
    Instant at = Instant.parse("2026-01-01T00:00:00Z");

    assertThat(order().id(id).occurredAt(at).payload("{}").priority(3).build())
        .isEqualTo(order().id(id).occurredAt(at).payload("{}").priority(3).build())
        .isNotEqualTo(order().id(id).occurredAt(at).payload("{}").build());
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

  // ------------------------------------------------------------------ text that survives storage

  /** One character outside the Basic Multilingual Plane: two UTF-16 units. */
  private static final String ROCKET = "\uD83D\uDE80";

  @Test
  void lengths_are_counted_in_characters_not_utf16_units() {
    String limit = ROCKET.repeat(OutboxEvent.MAX_FIELD_LENGTH);
    OutboxEvent e =
        OutboxEvent.builder(limit, limit, limit).destination(limit).payload("{}").build();

    assertThat(e.aggregateId()).isEqualTo(limit);
    assertThat(e.aggregateId().codePointCount(0, e.aggregateId().length())).isEqualTo(255);
    assertThat(
            OutboxEvent.builder("A", ROCKET.repeat(200), "T").payload("{}").build().aggregateId())
        .isEqualTo(ROCKET.repeat(200));
    assertInvalid(
        () -> OutboxEvent.builder("A", ROCKET.repeat(256), "T"),
        "aggregateId",
        "is 256 characters long; the limit is 255");
  }

  @Test
  void nul_is_refused_in_every_text_field_naming_the_field() {
    String nul = "a\u0000b";
    assertInvalid(() -> OutboxEvent.builder(nul, "1", "T"), "aggregateType", "NUL (U+0000)");
    assertInvalid(() -> OutboxEvent.builder("A", nul, "T"), "aggregateId", "NUL (U+0000)");
    assertInvalid(() -> OutboxEvent.builder("A", "1", nul), "eventType", "NUL (U+0000)");
    assertInvalid(() -> order().destination(nul), "destination", "NUL (U+0000) at index 1");
    assertInvalid(() -> order().tenant(nul), "tenant", "NUL (U+0000)");
    assertInvalid(() -> order().payload(new byte[0], "text/plain" + nul), "contentType", "NUL");
    assertInvalid(() -> order().header(nul, "v"), "headers", "NUL (U+0000)");
    assertInvalid(() -> order().header("x", nul), "headers", "NUL");
  }

  @Test
  void unpaired_surrogates_are_refused_so_two_ids_cannot_become_one() {
    // Stored, both would read back as "o-?-1".
    assertInvalid(
        () -> OutboxEvent.builder("Order", "o-\uD800-1", "T"),
        "aggregateId",
        "unpaired surrogate (U+D800) at index 2");
    assertInvalid(() -> OutboxEvent.builder("Order", "o-\uDC00-1", "T"), "aggregateId", "(U+DC00)");
    assertInvalid(() -> OutboxEvent.builder("\uD83D", "1", "T"), "aggregateType", "surrogate");
    assertInvalid(
        () -> OutboxEvent.builder("A", "1", "T\uDE80" + ROCKET), "eventType", "surrogate");
    assertInvalid(() -> order().destination("q\uD800"), "destination", "surrogate");
    assertInvalid(() -> order().tenant("\uDFFFt"), "tenant", "surrogate");
    assertInvalid(
        () -> order().header("x", "v\uD800"), "headers", "header 'x' contains an unpaired");
    assertThat(order().header("x", ROCKET).payload("{}").build().headers())
        .containsEntry("x", ROCKET);
  }

  @Test
  void content_type_must_be_printable_ascii_but_may_carry_parameters() {
    assertInvalid(
        () -> order().payload(new byte[0], "application/json\r\nX-Injected: 1"),
        "contentType",
        "outside printable ASCII at index 16");
    assertInvalid(
        () -> order().payload(new byte[0], "text/plain; note=\u00e9"), "contentType", "ASCII");
    assertInvalid(() -> order().payload(new byte[0], "text/plain;\tq=1"), "contentType", "ASCII");
    assertInvalid(() -> order().payload(new byte[0], "text/plain\u007f"), "contentType", "ASCII");

    for (String ok :
        List.of(
            "application/json; charset=utf-8",
            "text/plain;charset=UTF-8",
            "multipart/form-data; boundary=\"a b\"",
            "application/vnd.example+json; version=2",
            OutboxEvent.JSON)) {
      assertThat(order().payload(new byte[0], ok).build().contentType()).isEqualTo(ok);
    }
  }

  @Test
  void refusals_echo_no_line_break_of_the_value() {
    assertThatThrownBy(() -> order().header("x\r\n[main] INFO forged", "v"))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageContaining("header name 'x\\r\\n[main] INFO forged' is not a token")
        .satisfies(ex -> assertThat(ex.getMessage()).doesNotContain("\r", "\n"));
    assertThatThrownBy(() -> order().payload(new byte[0], "a/b\nforged"))
        .satisfies(ex -> assertThat(ex.getMessage()).doesNotContain("\n").contains("a/b\\nforged"));
  }

  // ------------------------------------------------------------------------------- time limits

  @Test
  void a_delay_no_database_can_add_is_refused_naming_the_limit() {
    for (Duration forever :
        List.of(
            ChronoUnit.FOREVER.getDuration(),
            Duration.ofSeconds(Long.MAX_VALUE),
            ChronoUnit.MILLENNIA.getDuration().multipliedBy(10),
            Duration.ofDays(36_501))) {
      assertInvalid(() -> order().delay(forever), "delay", "the limit is OutboxEvent.MAX_DELAY");
    }
    assertThat(order().delay(OutboxEvent.MAX_DELAY).payload("{}").build().delay())
        .isEqualTo(Duration.ofDays(36_500));
  }

  @Test
  void instants_outside_what_every_database_stores_are_refused_naming_the_field() {
    for (Instant outside :
        List.of(
            Instant.MAX,
            Instant.MIN,
            Instant.parse("+10000-01-01T00:00:00Z"),
            Instant.parse("0999-12-31T23:59:59.999999Z"))) {
      assertInvalid(() -> order().expiresAt(outside), "expiresAt", "OutboxEvent.LATEST_INSTANT");
      assertInvalid(
          () -> order().occurredAt(outside), "occurredAt", "OutboxEvent.EARLIEST_INSTANT");
    }
    assertInvalid(
        () ->
            order()
                .payload("{}")
                .clock(Clock.fixed(Instant.parse("+10000-01-01T00:00:00Z"), ZoneOffset.UTC))
                .build(),
        "occurredAt",
        "9999-12-31T23:59:59.999999Z");

    OutboxEvent latest =
        order()
            .occurredAt(Instant.parse("1000-01-01T00:00:00Z"))
            // Nanoseconds beyond the stored microseconds do not push it over the limit.
            .expiresAt(Instant.parse("9999-12-31T23:59:59.999999999Z"))
            .payload("{}")
            .build();
    assertThat(latest.occurredAt()).isEqualTo(OutboxEvent.EARLIEST_INSTANT);
    assertThat(latest.expiresAt()).contains(OutboxEvent.LATEST_INSTANT);
  }

  private static void assertInvalid(Runnable action, String field, String messagePart) {
    assertThatThrownBy(action::run)
        .isInstanceOfSatisfying(
            InvalidEventException.class, ex -> assertThat(ex.field()).isEqualTo(field))
        .hasMessageContaining(messagePart);
  }
}
