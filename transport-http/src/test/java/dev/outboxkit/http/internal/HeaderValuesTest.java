package dev.outboxkit.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HeaderValuesTest {

  @Test
  void encode_leaves_printable_ascii_without_percent_alone() {
    assertThat(HeaderValues.encode("Order 42/a-b_c ~!")).isEqualTo("Order 42/a-b_c ~!");
  }

  @Test
  void encode_escapes_the_percent_sign_so_that_encoding_is_reversible() {
    assertThat(HeaderValues.encode("Order 42/a-b_c %20")).isEqualTo("Order 42/a-b_c %2520");
    assertThat(HeaderValues.encode("%E2%9C%93")).isEqualTo("%25E2%259C%2593");
    assertThat(HeaderValues.encode("\u2713")).isEqualTo("%E2%9C%93");
    assertThat(HeaderValues.encode("100% \u2713")).isEqualTo("100%25 %E2%9C%93");
  }

  @Test
  void decode_undoes_encode() {
    for (String v :
        new String[] {
          "",
          "plain",
          "%",
          "%%",
          "100%",
          "%E2%9C%93",
          "100% \u2713",
          "a\u0001b\tc",
          "\uD83D\uDE00 %zz"
        }) {
      assertThat(HeaderValues.decode(HeaderValues.encode(v))).as(v).isEqualTo(v);
    }
  }

  @Test
  void decode_keeps_what_is_not_an_escape_and_replaces_bytes_that_are_not_utf8() {
    assertThat(HeaderValues.decode("100% sure %4")).isEqualTo("100% sure %4");
    assertThat(HeaderValues.decode("%e2%9c%93")).isEqualTo("\u2713");
    assertThat(HeaderValues.decode("x%FFy")).isEqualTo("x\uFFFDy");
    // Only ASCII hex digits count: Character.digit would also take an Arabic-Indic three.
    assertThat(HeaderValues.decode("%\u06634")).isEqualTo("%\u06634");
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
