package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HeadersCodecTest {

  @Test
  void round_trips_awkward_text_in_order() {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("b", "quote \" backslash \\ tab \t unicode ü 漢字 🚀 control \u0001");
    headers.put("a", "");
    assertThat(HeadersCodec.decode(HeadersCodec.encode(headers))).containsExactlyEntriesOf(headers);
  }

  @Test
  void no_headers_are_stored_as_null() {
    assertThat(HeadersCodec.encode(Map.of())).isNull();
    assertThat(HeadersCodec.decode(null)).isEmpty();
  }

  @Test
  void reads_standard_json_written_by_other_tools() {
    assertThat(HeadersCodec.decode(" { \"k\" : \"v\\/\\u00e9\" , \"x\":\"y\" } "))
        .containsExactly(Map.entry("k", "v/é"), Map.entry("x", "y"));
  }

  @Test
  void refuses_what_is_not_an_object_of_strings() {
    assertThatThrownBy(() -> HeadersCodec.decode("{\"k\": 1}"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HeadersCodec.decode("{\"k\": \"v\""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HeadersCodec.decode("[]"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
