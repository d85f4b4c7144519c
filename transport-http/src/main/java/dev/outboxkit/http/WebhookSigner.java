package dev.outboxkit.http;

import dev.outboxkit.http.internal.Hmac;
import dev.outboxkit.http.internal.Secrets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs webhook messages per the <a href="https://www.standardwebhooks.com/">Standard Webhooks</a>
 * specification: {@code v1,<base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}"))>}, where the key is
 * the base64-decoded part of a {@code whsec_…} secret. Usable on its own, e.g. to sign requests
 * sent by other code. Immutable and thread-safe.
 *
 * <pre>{@code
 * WebhookSigner signer = WebhookSigner.of("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
 * Map<String, String> headers = signer.headers(id, Instant.now(), body);
 * }</pre>
 *
 * <p>Key rotation: give the new and the old secret; every request then carries one signature per
 * secret, so receivers holding either one accept it. Drop the old secret once every receiver has
 * the new one.
 *
 * <p>Secrets must carry the {@code whsec_} prefix. A bare base64 string is refused rather than
 * guessed at, so a wrongly copied value (a password, a hex key) fails at configuration time instead
 * of producing signatures nobody can verify; prefix a bare base64 key with {@code whsec_}. The key
 * must be at least {@value #MIN_SECRET_BYTES} bytes, as Standard Webhooks asks (longer keys, also
 * over its 64 bytes, are accepted); {@link #generateSecret()} makes one, as does {@code echo
 * "whsec_$(openssl rand -base64 32)"} in a shell.
 */
public final class WebhookSigner {
  /**
   * The shortest key accepted, in bytes (decoded from the base64 after {@code whsec_}): {@value},
   * the lower bound of Standard Webhooks. Shorter secrets are refused by the signer, {@link
   * WebhookEndpoint}, {@link WebhookTransport} and {@link WebhookVerifier} alike.
   */
  public static final int MIN_SECRET_BYTES = Secrets.MIN_KEY_BYTES;

  private final List<SecretKeySpec> keys;

  private WebhookSigner(List<SecretKeySpec> keys) {
    this.keys = keys;
  }

  /**
   * Generates a new secret for an endpoint: {@code whsec_} and the base64 of 32 random bytes from
   * {@link java.security.SecureRandom}. Give it to the endpoint (or the transport) and to the
   * receiver's {@link WebhookVerifier}; store it as you store passwords. The shell equivalent is
   * {@code echo "whsec_$(openssl rand -base64 32)"}.
   *
   * @return a new secret, different on every call
   */
  public static String generateSecret() {
    return Secrets.generate();
  }

  /**
   * A signer for one or more secrets.
   *
   * @param secrets {@code whsec_<base64 key>} values, each key at least {@value #MIN_SECRET_BYTES}
   *     bytes; several during key rotation
   * @return the signer
   * @throws dev.outboxkit.OutboxConfigurationException if none is given or one is malformed or too
   *     short (the message never repeats the secret)
   */
  public static WebhookSigner of(String... secrets) {
    return of(secrets == null ? List.of() : Arrays.asList(secrets));
  }

  /**
   * A signer for one or more secrets.
   *
   * @param secrets {@code whsec_<base64 key>} values; several during key rotation
   * @return the signer
   * @throws dev.outboxkit.OutboxConfigurationException if none is given or one is malformed
   */
  public static WebhookSigner of(List<String> secrets) {
    return new WebhookSigner(Secrets.decodeAll(secrets));
  }

  /**
   * Computes the {@code webhook-signature} header value.
   *
   * @param id the message id ({@code webhook-id})
   * @param timestamp unix seconds ({@code webhook-timestamp})
   * @param body the exact bytes sent as the request body
   * @return {@code v1,<base64>} per secret, separated by single spaces
   */
  public String sign(String id, long timestamp, byte[] body) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(body, "body");
    if (timestamp < 0) {
      throw new IllegalArgumentException("timestamp must not be negative, was " + timestamp);
    }
    StringBuilder sb = new StringBuilder(48 * keys.size());
    Base64.Encoder base64 = Base64.getEncoder();
    for (SecretKeySpec key : keys) {
      if (sb.length() > 0) {
        sb.append(' ');
      }
      sb.append("v1,").append(base64.encodeToString(Hmac.sign(key, id, timestamp, body)));
    }
    return sb.toString();
  }

  /**
   * The three Standard Webhooks headers for a message.
   *
   * @param id the message id
   * @param timestamp when the request is sent; truncated to seconds
   * @param body the exact bytes sent as the request body
   * @return {@code webhook-id}, {@code webhook-timestamp} and {@code webhook-signature}, in that
   *     order; unmodifiable
   */
  public Map<String, String> headers(String id, Instant timestamp, byte[] body) {
    long seconds = Objects.requireNonNull(timestamp, "timestamp").getEpochSecond();
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put(WebhookHeaders.ID, id);
    headers.put(WebhookHeaders.TIMESTAMP, Long.toString(seconds));
    headers.put(WebhookHeaders.SIGNATURE, sign(id, seconds, body));
    return Collections.unmodifiableMap(headers);
  }

  /** {@return how many secrets sign each message (the number of signatures per header)} */
  public int secretCount() {
    return keys.size();
  }

  /** Says how many secrets there are; never shows them. */
  @Override
  public String toString() {
    return "WebhookSigner[secrets=" + keys.size() + "]";
  }
}
