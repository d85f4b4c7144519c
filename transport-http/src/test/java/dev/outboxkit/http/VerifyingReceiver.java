package dev.outboxkit.http;

import dev.outboxkit.testkit.http.HttpReceiver;
import java.io.IOException;

/**
 * The test kit's {@link HttpReceiver} checking each request's signature with a {@link
 * WebhookVerifier}: a request it refuses is recorded with the reason and answered 401.
 */
final class VerifyingReceiver {
  private VerifyingReceiver() {}

  static HttpReceiver start(WebhookVerifier verifier) throws IOException {
    return HttpReceiver.start(
        r -> {
          WebhookVerifier.Result result = verifier.verify(r.headers(), r.body());
          return result.isValid() ? null : result.toString();
        });
  }
}
