package dev.outboxkit.jdbc.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads statement files: each statement starts at a {@code -- name: <statement>} line and runs to
 * the next one; other whole-line comments are dropped. Statements are kept whole, as written, so
 * the text in the file is the text the database runs once its placeholders are filled in (see
 * {@link dev.outboxkit.jdbc.dialect.SqlDialect}). The shipped ones live under {@code
 * dev/outboxkit/jdbc/sql/}: {@code common.sql}, and one file per vendor stating only what differs.
 */
final class SqlStatements {
  private static final String FOLDER = "/dev/outboxkit/jdbc/sql/";
  private static final String NAME_MARK = "-- name:";

  private SqlStatements() {}

  /** The text of {@code common.sql}, the statements that read the same on most databases. */
  static String commonText() {
    return shippedText("common.sql");
  }

  /**
   * The text of a shipped statement file.
   *
   * @throws IllegalStateException if it is missing: a packaging error, not a user's
   */
  static String shippedText(String file) {
    return read(file);
  }

  /**
   * Parses a statement file.
   *
   * @param file where the text came from, for errors
   * @return statement text by name, in file order
   * @throws IllegalStateException if the text is malformed
   */
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
