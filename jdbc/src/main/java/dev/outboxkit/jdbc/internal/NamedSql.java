package dev.outboxkit.jdbc.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Statement text with named parameters ({@code :owner}), parsed once: the text between them and
 * their names in order. {@link #render} turns it into JDBC text with {@code ?} and the positions of
 * each name, a list parameter expanded to as many {@code ?} as it has values. Text inside string
 * literals and quoted identifiers is left alone, as is PostgreSQL's {@code ::} cast.
 */
final class NamedSql {
  private final List<String> texts;
  private final List<String> names;

  private NamedSql(List<String> texts, List<String> names) {
    this.texts = texts;
    this.names = names;
  }

  /**
   * Parses a statement.
   *
   * @throws IllegalArgumentException if it has a plain {@code ?}: parameters are named here
   */
  static NamedSql parse(String sql) {
    List<String> texts = new ArrayList<>();
    List<String> names = new ArrayList<>();
    StringBuilder text = new StringBuilder();
    char quote = 0;
    for (int i = 0; i < sql.length(); i++) {
      char ch = sql.charAt(i);
      if (quote != 0) {
        text.append(ch);
        if (ch == quote) {
          quote = 0;
        }
      } else if (ch == '\'' || ch == '"') {
        quote = ch;
        text.append(ch);
      } else if (ch == '?') {
        throw new IllegalArgumentException(
            "a plain '?' at offset " + i + ": name each parameter (':owner', ':limit', ...)");
      } else if (ch == ':' && i + 1 < sql.length() && sql.charAt(i + 1) == ':') {
        text.append("::");
        i++;
      } else if (ch == ':' && i + 1 < sql.length() && isStart(sql.charAt(i + 1))) {
        int end = i + 1;
        while (end < sql.length() && isPart(sql.charAt(end))) {
          end++;
        }
        texts.add(text.toString());
        text.setLength(0);
        names.add(sql.substring(i + 1, end));
        i = end - 1;
      } else {
        text.append(ch);
      }
    }
    texts.add(text.toString());
    return new NamedSql(Collections.unmodifiableList(texts), Collections.unmodifiableList(names));
  }

  private static boolean isStart(char c) {
    return Character.isLetter(c) || c == '_';
  }

  private static boolean isPart(char c) {
    return Character.isLetterOrDigit(c) || c == '_';
  }

  /** The distinct parameter names, in order of first use. */
  Set<String> names() {
    return new LinkedHashSet<>(names);
  }

  /** How many parameters the text has, counting repeats. */
  int occurrences() {
    return names.size();
  }

  /**
   * The JDBC text and where each name is bound.
   *
   * @param listParam the list parameter's name, or null
   * @param listSize how many values it has (each occurrence becomes that many {@code ?})
   */
  Rendered render(String listParam, int listSize) {
    StringBuilder sql = new StringBuilder(texts.get(0).length() * (texts.size() + 1));
    Map<String, List<Integer>> positions = new HashMap<>();
    int next = 1;
    sql.append(texts.get(0));
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      positions.computeIfAbsent(name, k -> new ArrayList<>()).add(next);
      if (name.equals(listParam)) {
        for (int v = 0; v < listSize; v++) {
          sql.append(v == 0 ? "?" : ", ?");
        }
        next += listSize;
      } else {
        sql.append('?');
        next++;
      }
      sql.append(texts.get(i + 1));
    }
    Map<String, int[]> at = new HashMap<>();
    positions.forEach((name, list) -> at.put(name, list.stream().mapToInt(n -> n).toArray()));
    return new Rendered(sql.toString(), at, next - 1);
  }

  /** JDBC text and the positions of each parameter name. */
  static final class Rendered {
    final String sql;
    private final Map<String, int[]> positions;
    final int parameterCount;

    Rendered(String sql, Map<String, int[]> positions, int parameterCount) {
      this.sql = sql;
      this.positions = positions;
      this.parameterCount = parameterCount;
    }

    /**
     * The first position of each occurrence of a name (a list parameter's values follow it); empty
     * where the dialect's text leaves the name out.
     */
    int[] positions(String name) {
      int[] p = positions.get(name);
      return p == null ? NONE : p;
    }

    private static final int[] NONE = new int[0];
  }
}
