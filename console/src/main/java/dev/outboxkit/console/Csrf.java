package dev.outboxkit.console;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The two checks every change passes: a token only this console can make for this caller (an HMAC
 * of the caller's name, so nothing is stored and every node sharing the secret accepts it), and a
 * request from the console's own origin.
 */
final class Csrf {
  static final String PARAMETER = "csrf";
  static final String HEADER = "X-CSRF-Token";

  private final byte[] secret;

  Csrf(byte[] secret) {
    this.secret = secret.clone();
  }

  String tokenFor(String caller) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      byte[] tag = mac.doFinal(("outboxkit-console:" + caller).getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(tag);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is missing from this JDK", e);
    }
  }

  /** {@return why the change is refused, or null if it passes} */
  String refusal(ConsoleExchange ex, String caller) {
    String fromHeader = ex.header(HEADER);
    String token = fromHeader != null ? fromHeader : ex.parameter(PARAMETER);
    if (token == null
        || !MessageDigest.isEqual(
            token.getBytes(StandardCharsets.UTF_8),
            tokenFor(caller).getBytes(StandardCharsets.UTF_8))) {
      return "missing or wrong CSRF token: reload the page and try again";
    }
    String origin = ex.header("Origin");
    if (origin == null) {
      String referer = ex.header("Referer");
      origin = referer == null ? null : originOf(referer);
    }
    if (origin == null) {
      // A script sending the token in a header needs no origin: browsers cannot send that
      // header across origins without a preflight this console never answers.
      return fromHeader != null ? null : "the request names no origin (no Origin or Referer)";
    }
    return origin.equalsIgnoreCase(ex.origin())
        ? null
        : "the request comes from another origin (" + origin + "), not " + ex.origin();
  }

  private static String originOf(String url) {
    try {
      URI u = URI.create(url);
      if (u.getScheme() == null || u.getHost() == null) {
        return null;
      }
      return u.getScheme() + "://" + u.getHost() + (u.getPort() < 0 ? "" : ":" + u.getPort());
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
