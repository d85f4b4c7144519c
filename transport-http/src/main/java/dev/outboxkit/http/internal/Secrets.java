package dev.outboxkit.http.internal;

import dev.outboxkit.OutboxConfigurationException;
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

  private Secrets() {}

  /**
   * Decodes one secret into an HMAC-SHA256 key.
   *
   * @param secret {@code whsec_} followed by standard base64 (padding optional)
   * @return the key
   * @throws OutboxConfigurationException if the secret is null or not in that format
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
          "webhook secret has an empty key: put the base64 of 24 to 64 random bytes after 'whsec_'");
    }
    return new SecretKeySpec(key, Hmac.ALGORITHM);
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
