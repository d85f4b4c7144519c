package dev.outboxkit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogTextTest {

  @Test
  void line_breaks_and_tabs_become_visible_escapes() {
    assertThat(LogText.escape("o-1\r\n[main] WARN forged\tline"))
        .isEqualTo("o-1\\r\\n[main] WARN forged\\tline");
  }

  @Test
  void other_control_characters_become_unicode_escapes() {
    assertThat(LogText.escape("a\u0000b\u001bc\u007fd\u0085e"))
        .isEqualTo("a\\u0000b\\u001Bc\\u007Fd\\u0085e");
  }

  @Test
  void unicode_line_separators_and_direction_controls_are_escaped() {
    assertThat(LogText.escape("a\u2028b\u2029c\u202Ed\u2066e\u200Ff"))
        .isEqualTo("a\\u2028b\\u2029c\\u202Ed\\u2066e\\u200Ff");
  }

  @Test
  void unpaired_surrogates_are_escaped_and_pairs_kept() {
    assertThat(LogText.escape("o-\uD800-1 \uDC00 \uD83D\uDE80 \uD83D"))
        .isEqualTo("o-\\uD800-1 \\uDC00 \uD83D\uDE80 \\uD83D");
  }

  @Test
  void ordinary_text_is_returned_as_is_and_escaping_twice_changes_nothing() {
    String plain = "Commande ordre-42 ü 漢字 \\ back\\slash";
    assertThat(LogText.escape(plain)).isSameAs(plain);
    String once = LogText.escape("x\ny");
    assertThat(LogText.escape(once)).isEqualTo(once);
    assertThat(LogText.escape(null)).isEqualTo("null");
  }
}
