package dev.outboxkit;

/**
 * A setting of OutboxKit is invalid (a table name that is not a plain identifier, a batch size out
 * of range, options that contradict each other). Thrown where the setting is made, before anything
 * runs.
 */
public class OutboxConfigurationException extends OutboxException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message the offending setting and what to do
   */
  public OutboxConfigurationException(String message) {
    super(message);
  }

  /**
   * @param message the offending setting and what to do
   * @param cause the underlying failure
   */
  public OutboxConfigurationException(String message, Throwable cause) {
    super(message, cause);
  }
}
