package dev.outboxkit.http;

import dev.outboxkit.OutboxException;
import java.util.Optional;

/**
 * A webhook request failed verification: its signature, timestamp or headers do not check out.
 * Receivers typically answer 400 or 401 and do not process the body. Thrown by {@link
 * WebhookVerifier#verifyOrThrow}.
 */
public class WebhookVerificationException extends OutboxException {
  private static final long serialVersionUID = 1L;

  /** Why the request was refused. */
  private final WebhookVerifier.Refusal refusal;

  /** The claimed {@code webhook-id}, or null. */
  private final String webhookId;

  /**
   * @param refusal why the request was refused
   * @param message the detail, without secrets or body content
   * @param webhookId the {@code webhook-id} the request claimed, or null if it had none
   */
  public WebhookVerificationException(
      WebhookVerifier.Refusal refusal, String message, String webhookId) {
    super(message);
    this.refusal = refusal;
    this.webhookId = webhookId;
  }

  /** {@return why the request was refused} */
  public WebhookVerifier.Refusal refusal() {
    return refusal;
  }

  /** {@return the {@code webhook-id} the request claimed (unverified), if it had one} */
  public Optional<String> webhookId() {
    return Optional.ofNullable(webhookId);
  }
}
