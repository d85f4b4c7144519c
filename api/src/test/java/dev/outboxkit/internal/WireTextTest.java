package dev.outboxkit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class WireTextTest {
  private static final WireText.Origin<RuntimeException> ORIGIN = () -> "header 'h' of record r";

  @Test
  void parses_what_it_is_given_and_gives_empty_for_empty() {
    UUID id = UUID.randomUUID();

    assertThat(WireText.uuid(Optional.of(id.toString()), ORIGIN)).contains(id);
    assertThat(WireText.integer(Optional.of("-3"), ORIGIN)).hasValue(-3);
    assertThat(WireText.instant(Optional.of("2025-01-31T12:13:01.5Z"), ORIGIN))
        .contains(Instant.parse("2025-01-31T12:13:01.5Z"));
    assertThat(WireText.uuid(Optional.empty(), ORIGIN)).isEmpty();
    assertThat(WireText.integer(Optional.empty(), ORIGIN)).isEmpty();
    assertThat(WireText.instant(Optional.empty(), ORIGIN)).isEmpty();
  }

  @Test
  void a_value_of_another_kind_is_refused_naming_its_origin_and_the_value() {
    assertThatThrownBy(() -> WireText.uuid(Optional.of("42"), ORIGIN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("header 'h' of record r is not a UUID: '42'");
    assertThatThrownBy(() -> WireText.integer(Optional.of("v2"), ORIGIN))
        .hasMessage("header 'h' of record r is not an integer: 'v2'");
    assertThatThrownBy(() -> WireText.instant(Optional.of("yesterday"), ORIGIN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("header 'h' of record r is not an ISO-8601 instant: 'yesterday'");
  }

  @Test
  void a_long_value_is_cut_to_80_characters_in_the_message() {
    String value = "x".repeat(100);

    assertThatThrownBy(() -> WireText.integer(Optional.of(value), ORIGIN))
        .hasMessageEndingWith(": '" + "x".repeat(80) + "\u2026'");
  }
}
