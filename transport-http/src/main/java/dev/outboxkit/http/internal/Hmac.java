package dev.outboxkit.http.internal;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** HMAC-SHA256 over the Standard Webhooks signed content {@code id.timestamp.body}. */
public final class Hmac {
  /** The JCA name of the MAC. */
  public static final String ALGORITHM = "HmacSHA256";

  private Hmac() {}

  /**
   * Computes the raw signature.
   *
   * @param key the decoded secret
   * @param id the message id ({@code webhook-id})
   * @param timestamp unix seconds ({@code webhook-timestamp})
   * @param body the exact bytes sent
   * @return 32 bytes
   */
  public static byte[] sign(SecretKeySpec key, String id, long timestamp, byte[] body) {
    Mac mac = newMac(key);
    // Fed piecewise rather than concatenated so binary bodies are signed byte for byte and no
    // copy of a large payload is made.
    mac.update(id.getBytes(StandardCharsets.UTF_8));
    mac.update((byte) '.');
    mac.update(Long.toString(timestamp).getBytes(StandardCharsets.US_ASCII));
    mac.update((byte) '.');
    mac.update(body);
    return mac.doFinal();
  }

  private static Mac newMac(SecretKeySpec key) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      return mac;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JDK has no " + ALGORITHM + " (required by Java SE)", e);
    } catch (InvalidKeyException e) {
      // Not expected: Secrets only builds non-empty keys. The message carries no key material.
      throw new IllegalStateException("webhook key refused by " + ALGORITHM, e);
    }
  }
}
