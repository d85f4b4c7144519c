package dev.outboxkit.debezium.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.jdbc.internal.EngineAccess;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The headers column as the relay reads it: this reader must give the same map as {@code
 * outboxkit-jdbc}'s codec for everything that codec writes, and for hand-written JSON.
 */
class HeadersColumnTest {

  @Test
  void parse_reads_no_headers_from_null_or_blank() {
    assertThat(HeadersColumn.parse(null)).isEmpty();
    assertThat(HeadersColumn.parse("")).isEmpty();
    assertThat(HeadersColumn.parse("  ")).isEmpty();
    assertThat(HeadersColumn.parse("{}")).isEmpty();
    assertThat(HeadersColumn.parse(" { } ")).isEmpty();
  }

  @Test
  void parse_reads_back_what_the_jdbc_codec_writes_in_order() {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    headers.put("quote", "say \"hi\"");
    headers.put("backslash", "C:\\temp\\");
    headers.put("controls", "tab\there\u0001\u001f and \b\f");
    headers.put("unicode", "na\u00efve \u4e16\u754c \ud83d\ude80");
    headers.put("empty", "");
    headers.put("json-like", "{\"a\":[1,2]}");
    headers.put("a", "last");

    String column = EngineAccess.encodeHeaders(headers);

    assertThat(HeadersColumn.parse(column)).containsExactlyEntriesOf(headers);
  }

  @Test
  void parse_matches_the_jdbc_codec_on_random_text() {
    Random random = new Random(20);
    for (int round = 0; round < 500; round++) {
      Map<String, String> headers = new LinkedHashMap<>();
      int n = random.nextInt(5);
      for (int i = 0; i < n; i++) {
        headers.put(randomText(random), randomText(random));
      }
      String column = EngineAccess.encodeHeaders(headers);
      assertParsedAsTheCodecDecodes(column);
    }
  }

  @Test
  void parse_matches_the_jdbc_codec_on_hand_written_json() {
    for (String column :
        List.of(
            "{\"a\":\"1\",\"b\":\"2\"}",
            " {\n  \"a\" : \"1\" ,\n\t\"b\":\"2\"\n} ",
            "{\"s\":\"\\/path\\/\",\"u\":\"\\u00e9\\ud83d\\ude80\",\"n\":\"\\r\\n\"}",
            "{\"dup\":\"first\",\"dup\":\"second\"}",
            "{\"UPPER\":\"\\u00C9\"}")) {
      assertParsedAsTheCodecDecodes(column);
    }
  }

  @Test
  void parse_refuses_what_is_not_a_json_object_of_strings() {
    for (String column :
        List.of(
            "[]",
            "{\"a\":1}",
            "{\"a\":\"1\"",
            "{\"a\":\"1\"} x",
            "{\"a\" \"1\"}",
            "{\"a\":\"1\",}",
            "{a:\"1\"}",
            "{\"a\":\"\\u12\"}",
            "{\"a\":\"\\uzzzz\"}",
            "{\"a\":\"open")) {
      assertThatThrownBy(() -> HeadersColumn.parse(column))
          .as(column)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("headers column is not a JSON object of strings");
    }
  }

  private static void assertParsedAsTheCodecDecodes(String column) {
    assertThat(HeadersColumn.parse(column))
        .as(column)
        .containsExactlyEntriesOf(EngineAccess.decodeHeaders(column));
  }

  private static String randomText(Random random) {
    int length = random.nextInt(8);
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < length; i++) {
      switch (random.nextInt(6)) {
        case 0:
          s.append((char) random.nextInt(0x20)); // control characters
          break;
        case 1:
          s.append("\"\\/{}:,".charAt(random.nextInt(7)));
          break;
        case 2:
          s.append(Character.toChars(0x1F600 + random.nextInt(50))); // a surrogate pair
          break;
        case 3:
          s.append((char) (0xA0 + random.nextInt(0x2000)));
          break;
        default:
          s.append((char) ('a' + random.nextInt(26)));
      }
    }
    return s.toString();
  }
}
