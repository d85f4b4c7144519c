package dev.outboxkit.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HeaderValuesTest {

  @Test
  void encode_leaves_printable_ascii_alone() {
    assertThat(HeaderValues.encode("Order 42/a-b_c %20")).isEqualTo("Order 42/a-b_c %20");
  }

  @Test
  void encode_percent_encodes_non_ascii_as_utf8() {
    assertThat(HeaderValues.encode("Bestellung-\u00e4\u20ac\uD83D\uDE00"))
        .isEqualTo("Bestellung-%C3%A4%E2%82%AC%F0%9F%98%80");
    assertThat(HeaderValues.encode("a\u0001b")).isEqualTo("a%01b");
  }

  @Test
  void reserves_the_transport_headers_in_any_case() {
    assertThat(HeaderValues.isReserved("Webhook-Signature")).isTrue();
    assertThat(HeaderValues.isReserved("webhook-anything")).isTrue();
    assertThat(HeaderValues.isReserved("SVIX-ID")).isTrue();
    assertThat(HeaderValues.isReserved("Content-Type")).isTrue();
    assertThat(HeaderValues.isReserved("outbox-tenant")).isTrue();
    assertThat(HeaderValues.isReserved("correlation-id")).isFalse();
    assertThat(HeaderValues.isReserved("authorization")).isFalse();
  }
}
