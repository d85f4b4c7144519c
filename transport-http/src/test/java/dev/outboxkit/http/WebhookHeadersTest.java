package dev.outboxkit.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The header readers, on header lookups as a receiver has them. */
class WebhookHeadersTest {

  @Test
  void aggregateVersion_reads_decimal_text_when_the_header_is_present() {
    assertThat(WebhookHeaders.aggregateVersion(Map.of("outbox-aggregate-version", "42")::get))
        .hasValue(42);
    assertThat(WebhookHeaders.aggregateVersion(Map.of("outbox-aggregate-version", " 7 ")::get))
        .hasValue(7);
  }

  @Test
  void aggregateVersion_is_empty_when_the_header_is_absent() {
    assertThat(WebhookHeaders.aggregateVersion(Map.of("outbox-tenant", "acme")::get)).isEmpty();
  }

  @Test
  void aggregateVersion_throws_naming_the_header_when_the_value_is_no_version() {
    for (String bad : List.of("v2", "", "0", "-3", "1.5", "99999999999999999999")) {
      assertThatThrownBy(
              () -> WebhookHeaders.aggregateVersion(Map.of("outbox-aggregate-version", bad)::get))
          .as("'%s'", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("header 'outbox-aggregate-version'")
          .hasMessageContaining("not an aggregate version")
          .hasMessageContaining("'" + bad + "'");
    }
  }
}
