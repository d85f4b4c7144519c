package dev.outboxkit.jdbc.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Named SQL statements read from class-path resources under {@code dev/outboxkit/jdbc/sql/}.
 *
 * <p>A file holds statements, each starting at a {@code -- name: <statement>} line and running to
 * the next one; other whole-line comments are dropped. Statements are kept whole, as written, so
 * the text in the file is the text the database runs (after the placeholders are filled in: the
 * clock's here, see {@link SqlClock}; the others by {@link OutboxSql}). Loading several files
 * layers them: a name in a later file replaces the one before, which is how a vendor file states
 * only what differs from {@code common.sql}.
 */
final class SqlStatements {
  private static final String FOLDER = "/dev/outboxkit/jdbc/sql/";
  private static final String NAME_MARK = "-- name:";

  private SqlStatements() {}

  /**
   * Reads the files in order, later names replacing earlier ones.
   *
   * @param clock the vendor's clock, for the clock placeholders
   * @param files file names relative to {@code dev/outboxkit/jdbc/sql/}
   * @return statement text by name, in file order
   * @throws IllegalStateException if a file is missing or malformed: a packaging error, not a
   *     user's
   */
  static Map<String, String> load(SqlClock clock, String... files) {
    Map<String, String> statements = new LinkedHashMap<>();
    for (String file : files) {
      statements.putAll(parse(file, read(file)));
    }
    statements.replaceAll((name, sql) -> clock.render(sql));
    return Collections.unmodifiableMap(statements);
  }

  /**
   * The statement of that name.
   *
   * @param dialect the dialect's name, for the error
   * @throws IllegalStateException if there is none: a packaging error, found when the dialect loads
   */
  static String required(Map<String, String> statements, String name, String dialect) {
    String sql = statements.get(name);
    if (sql == null) {
      throw new IllegalStateException(dialect + " has no statement " + name + " in " + FOLDER);
    }
    return sql;
  }

  static Map<String, String> parse(String file, String text) {
    Map<String, String> statements = new LinkedHashMap<>();
    String name = null;
    StringBuilder body = new StringBuilder();
    for (String line : text.split("\n", -1)) {
      String trimmed = line.trim();
      if (trimmed.startsWith(NAME_MARK)) {
        add(file, statements, name, body);
        name = trimmed.substring(NAME_MARK.length()).trim();
        if (name.isEmpty()) {
          throw new IllegalStateException(file + ": a '-- name:' line without a name");
        }
        body.setLength(0);
      } else if (!trimmed.startsWith("--")) {
        if (name == null && !trimmed.isEmpty()) {
          throw new IllegalStateException(file + ": SQL before the first '-- name:' line");
        }
        body.append(line.replaceAll("\\s+$", "")).append('\n');
      }
    }
    add(file, statements, name, body);
    return statements;
  }

  private static void add(
      String file, Map<String, String> statements, String name, CharSequence body) {
    if (name == null) {
      return;
    }
    String sql = body.toString().trim();
    if (sql.isEmpty()) {
      throw new IllegalStateException(file + ": statement '" + name + "' is empty");
    }
    if (statements.put(name, sql) != null) {
      throw new IllegalStateException(file + ": statement '" + name + "' is defined twice");
    }
  }

  private static String read(String file) {
    try (InputStream in = SqlStatements.class.getResourceAsStream(FOLDER + file)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + FOLDER + file);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + FOLDER + file, e);
    }
  }
}
