package dev.outboxkit.http.internal;

import dev.outboxkit.OutboxConfigurationException;
import java.time.Duration;

/**
 * The range checks of the webhook builders' options ({@code WebhookTransport.Builder}, {@code
 * WebhookVerifier.Builder}), so that each kind of limit is worded the same way wherever it is set:
 * the option's name, the range, and the value given. Null checks stay with the builders, which
 * differ in what they throw for null.
 */
public final class Options {
  private Options() {}

  /**
   * @param option the option's name, for the message
   * @throws OutboxConfigurationException unless {@code min <= value <= max}
   */
  public static int between(String option, int value, int min, int max) {
    if (value < min || value > max) {
      throw new OutboxConfigurationException(
          option + " must be between " + min + " and " + max + ", was " + value);
    }
    return value;
  }

  /**
   * A timeout of the HTTP client: 1 ms to 5 minutes.
   *
   * @param option the option's name, for the message
   * @throws OutboxConfigurationException if null or out of range
   */
  public static Duration timeout(String option, Duration timeout) {
    OutboxConfigurationException.requireNonNull(timeout, option);
    if (timeout.toMillis() < 1 || timeout.compareTo(Duration.ofMinutes(5)) > 0) {
      throw new OutboxConfigurationException(
          option + " must be between 1 ms and 5 minutes, was " + timeout);
    }
    return timeout;
  }

  /**
   * A duration counted in whole seconds (a {@code Retry-After}, a timestamp tolerance).
   *
   * @param option the option's name, for the message
   * @param value not null
   * @throws OutboxConfigurationException if shorter than 1 second
   */
  public static Duration atLeastOneSecond(String option, Duration value) {
    if (value.getSeconds() < 1) {
      throw new OutboxConfigurationException(option + " must be at least 1 second, was " + value);
    }
    return value;
  }

  /**
   * @param option the option's name, for the message
   * @param value not null
   * @throws OutboxConfigurationException if zero or negative
   */
  public static Duration positive(String option, Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new OutboxConfigurationException(option + " must be positive, was " + value);
    }
    return value;
  }
}
