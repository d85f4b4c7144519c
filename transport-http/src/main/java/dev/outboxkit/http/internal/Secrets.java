package dev.outboxkit.http.internal;

import dev.outboxkit.OutboxConfigurationException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import javax.crypto.spec.SecretKeySpec;

/**
 * Parses Standard Webhooks secrets ({@code whsec_<base64 key>}). Error messages never contain the
 * secret, not even a part of it, because they end up in logs and stack traces.
 */
public final class Secrets {
  /** The prefix every accepted secret carries. */
  public static final String PREFIX = "whsec_";

  /** The shortest key accepted, in bytes: the lower bound Standard Webhooks sets. */
  public static final int MIN_KEY_BYTES = 24;

  /** The size of a generated key, in bytes. */
  public static final int GENERATED_KEY_BYTES = 32;

  /** How to make a secret, for error messages. */
  private static final String HOW_TO_GENERATE =
      "generate one with WebhookSigner.generateSecret(), or in a shell with:"
          + " echo \"whsec_$(openssl rand -base64 32)\"";

  // SecureRandom is thread-safe; one instance avoids reseeding from the OS on every call.
  private static final class Random {
    static final SecureRandom INSTANCE = new SecureRandom();
  }

  private Secrets() {}

  /**
   * Decodes one secret into an HMAC-SHA256 key.
   *
   * @param secret {@code whsec_} followed by the standard base64 (padding optional) of at least
   *     {@link #MIN_KEY_BYTES} bytes
   * @return the key
   * @throws OutboxConfigurationException if the secret is null, not in that format or too short
   */
  public static SecretKeySpec decode(String secret) {
    if (secret == null) {
      throw new OutboxConfigurationException("webhook secret must not be null");
    }
    if (!secret.startsWith(PREFIX)) {
      throw new OutboxConfigurationException(
          "webhook secret must look like 'whsec_<base64 key>' (Standard Webhooks format);"
              + " if you hold the bare base64 key, prefix it with 'whsec_'"
              + " (the value given is not shown)");
    }
    byte[] key;
    try {
      key = Base64.getDecoder().decode(secret.substring(PREFIX.length()));
    } catch (IllegalArgumentException e) {
      // The cause is dropped on purpose: its message quotes the offending character.
      throw new OutboxConfigurationException(
          "webhook secret is not valid: the part after 'whsec_' must be standard base64"
              + " (A-Z a-z 0-9 + /, optional = padding, no spaces or line breaks;"
              + " the value given is not shown)");
    }
    if (key.length == 0) {
      throw new OutboxConfigurationException(
          "webhook secret has an empty key: put the base64 of 24 to 64 random bytes after 'whsec_';"
              + " "
              + HOW_TO_GENERATE);
    }
    // Standard Webhooks asks for 24 to 64 bytes. Shorter keys are refused everywhere (signer and
    // verifier alike): a receiver configured with a short key would otherwise accept signatures
    // that are easy to forge. Longer keys are accepted: HMAC-SHA256 hashes a key over 64 bytes to
    // 32, so it is no weaker, and a receiver must be able to take what its sender issued.
    if (key.length < MIN_KEY_BYTES) {
      throw new OutboxConfigurationException(
          "webhook secret is too short: its key is "
              + key.length
              + " byte(s), Standard Webhooks asks for at least "
              + MIN_KEY_BYTES
              + " (the value given is not shown); "
              + HOW_TO_GENERATE);
    }
    return new SecretKeySpec(key, Hmac.ALGORITHM);
  }

  /**
   * A new random secret.
   *
   * @return {@code whsec_} and the base64 of {@link #GENERATED_KEY_BYTES} bytes from {@link
   *     SecureRandom}
   */
  public static String generate() {
    byte[] key = new byte[GENERATED_KEY_BYTES];
    Random.INSTANCE.nextBytes(key);
    return PREFIX + Base64.getEncoder().encodeToString(key);
  }

  /**
   * Decodes several secrets, requiring at least one.
   *
   * @param secrets the secrets, in the order their signatures should appear
   * @return the keys, same order
   */
  public static List<SecretKeySpec> decodeAll(List<String> secrets) {
    if (secrets == null || secrets.isEmpty()) {
      throw new OutboxConfigurationException(
          "at least one webhook secret ('whsec_<base64 key>') is required");
    }
    List<SecretKeySpec> keys = new ArrayList<>(secrets.size());
    for (String secret : secrets) {
      keys.add(decode(secret));
    }
    return Collections.unmodifiableList(keys);
  }
}
