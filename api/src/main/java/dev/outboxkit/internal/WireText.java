package dev.outboxkit.internal;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.function.Function;

/**
 * The event fields a consumer reads back from a message's headers or properties, parsed from their
 * text: what the transports' reader classes ({@code KafkaEvents}, {@code JmsEvents}) share, error
 * messages included.
 */
public final class WireText {
  private WireText() {}

  /**
   * Names where a value was read, for an error message; may throw what reading the message does.
   *
   * @param <E> what naming it may throw
   */
  @FunctionalInterface
  public interface Origin<E extends Exception> {
    /**
     * The name, e.g. {@code header 'id' of record orders-0@42}.
     *
     * @return the name
     * @throws E if the message cannot say what it is
     */
    String name() throws E;
  }

  /**
   * Parses an event id.
   *
   * @param text the value, as it is to be parsed, or empty
   * @param origin where it was read
   * @param <E> what naming the origin may throw
   * @return the id, or empty if the text is
   * @throws IllegalArgumentException if the text is not a UUID; the message names the origin
   * @throws E if the origin cannot be named
   */
  public static <E extends Exception> Optional<UUID> uuid(Optional<String> text, Origin<E> origin)
      throws E {
    return parse(text, UUID::fromString, "a UUID", origin);
  }

  /**
   * Parses a decimal integer, such as a schema version.
   *
   * @param text the value, as it is to be parsed, or empty
   * @param origin where it was read
   * @param <E> what naming the origin may throw
   * @return the number, or empty if the text is
   * @throws IllegalArgumentException if the text is not an integer; the message names the origin
   * @throws E if the origin cannot be named
   */
  public static <E extends Exception> OptionalInt integer(Optional<String> text, Origin<E> origin)
      throws E {
    Optional<Integer> number = parse(text, Integer::parseInt, "an integer", origin);
    return number.isEmpty() ? OptionalInt.empty() : OptionalInt.of(number.get());
  }

  /**
   * Parses an ISO-8601 instant, such as when an event happened.
   *
   * @param text the value, as it is to be parsed, or empty
   * @param origin where it was read
   * @param <E> what naming the origin may throw
   * @return the instant, or empty if the text is
   * @throws IllegalArgumentException if the text is not an instant; the message names the origin
   * @throws E if the origin cannot be named
   */
  public static <E extends Exception> Optional<Instant> instant(
      Optional<String> text, Origin<E> origin) throws E {
    return parse(text, Instant::parse, "an ISO-8601 instant", origin);
  }

  /**
   * Parses an aggregate version: a decimal whole number of 1 or more.
   *
   * @param text the value, as it is to be parsed, or empty
   * @param origin where it was read
   * @param <E> what naming the origin may throw
   * @return the version, or empty if the text is
   * @throws IllegalArgumentException if the text is not a version; the message names the origin
   * @throws E if the origin cannot be named
   */
  public static <E extends Exception> OptionalLong version(Optional<String> text, Origin<E> origin)
      throws E {
    Optional<Long> number =
        parse(
            text,
            t -> {
              long v = Long.parseLong(t);
              if (v < 1) {
                throw new IllegalArgumentException("below 1");
              }
              return v;
            },
            "an aggregate version (a whole number of 1 or more)",
            origin);
    return number.isEmpty() ? OptionalLong.empty() : OptionalLong.of(number.get());
  }

  // UUID.fromString and Integer.parseInt throw IllegalArgumentException, Instant.parse a
  // DateTimeParseException. Values are data from the wire; keep error messages short.
  private static <T, E extends Exception> Optional<T> parse(
      Optional<String> text, Function<String, T> parser, String expected, Origin<E> origin)
      throws E {
    if (text.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(parser.apply(text.get()));
    } catch (IllegalArgumentException | DateTimeParseException e) {
      String value = text.get();
      String shown = value.length() <= 80 ? value : value.substring(0, 80) + "\u2026";
      throw new IllegalArgumentException(
          origin.name() + " is not " + expected + ": '" + shown + "'", e);
    }
  }
}
