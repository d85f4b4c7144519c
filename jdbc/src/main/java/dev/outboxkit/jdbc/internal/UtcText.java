package dev.outboxkit.jdbc.internal;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * An instant as the text a zone-less UTC column is bound with ({@code TimeColumn.UTC_TEXT}): {@code
 * 2026-12-04 21:48:03.123456}, microseconds truncated. Written digit by digit, because {@link
 * DateTimeFormatter} took 80 % of the library's own CPU time in an append on MariaDB.
 */
final class UtcText {
  private static final DateTimeFormatter PATTERN =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS");

  private UtcText() {}

  static String format(Instant instant) {
    LocalDateTime t = LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
    int year = t.getYear();
    if (year < 0 || year > 9999) {
      return PATTERN.format(t); // signed or five digits: as the pattern writes them
    }
    char[] text = new char[26];
    digits(text, 0, year, 4);
    text[4] = '-';
    digits(text, 5, t.getMonthValue(), 2);
    text[7] = '-';
    digits(text, 8, t.getDayOfMonth(), 2);
    text[10] = ' ';
    digits(text, 11, t.getHour(), 2);
    text[13] = ':';
    digits(text, 14, t.getMinute(), 2);
    text[16] = ':';
    digits(text, 17, t.getSecond(), 2);
    text[19] = '.';
    digits(text, 20, t.getNano() / 1000, 6);
    return new String(text);
  }

  /** Writes {@code value} in {@code width} digits, zero-padded, at {@code at}. */
  private static void digits(char[] text, int at, int value, int width) {
    for (int i = at + width - 1; i >= at; i--) {
      text[i] = (char) ('0' + value % 10);
      value /= 10;
    }
  }
}
