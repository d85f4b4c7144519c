package dev.outboxkit;

/**
 * An event was refused before anything was written because one of its fields is invalid. The
 * message names the field and says what a valid value looks like.
 */
public class InvalidEventException extends OutboxException {
  private static final long serialVersionUID = 1L;

  /** Kept as a field so callers can map the failure to their own input without parsing text. */
  private final String field;

  /**
   * @param field the name of the offending field, as in the builder ({@code "aggregateId"})
   * @param message what is wrong with it and what to do
   */
  public InvalidEventException(String field, String message) {
    super(message);
    this.field = field;
  }

  /** {@return the name of the offending field, as in {@link OutboxEvent.Builder}} */
  public String field() {
    return field;
  }
}
