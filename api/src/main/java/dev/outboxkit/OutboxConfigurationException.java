package dev.outboxkit;

/**
 * A setting of OutboxKit is invalid (a table name that is not a plain identifier, a batch size out
 * of range, options that contradict each other). Thrown where the setting is made, before anything
 * runs.
 */
public class OutboxConfigurationException extends OutboxException {
  private static final long serialVersionUID = 1L;

  /** The rule of every OutboxKit component name (relays, transports, metrics): {@value}. */
  public static final String NAME_RULE = "1 to 100 letters, digits, '-', '_' or '.'";

  private static final java.util.regex.Pattern NAME =
      java.util.regex.Pattern.compile("[A-Za-z0-9_.-]{1,100}");

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

  /**
   * Checks that an option was given: the one rule of every OutboxKit builder for a missing value.
   *
   * @param value the value given
   * @param option the option's name, as the builder method is called
   * @param <T> the value's type
   * @return the value
   * @throws OutboxConfigurationException "{@code <option> must not be null}" if it is null
   */
  public static <T> T requireNonNull(T value, String option) {
    if (value == null) {
      throw new OutboxConfigurationException(option + " must not be null");
    }
    return value;
  }

  /**
   * Checks a component's name (a relay's, a transport's), which appears in log lines, thread names
   * and lease owners: {@value #NAME_RULE}.
   *
   * @param name the name given
   * @return the name
   * @throws OutboxConfigurationException naming the rule and the value if it breaks it
   */
  public static String checkName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new OutboxConfigurationException(
          "name must be " + NAME_RULE + ", was " + (name == null ? "null" : "'" + name + "'"));
    }
    return name;
  }
}
