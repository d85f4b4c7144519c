package dev.outboxkit.http;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.http.internal.Hmac;
import dev.outboxkit.http.internal.Options;
import dev.outboxkit.http.internal.Secrets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks signed webhook requests on the receiving side (a servlet filter, a plain handler),
 * following the <a href="https://www.standardwebhooks.com/">Standard Webhooks</a> specification.
 * Immutable and thread-safe; build one and share it.
 *
 * <pre>{@code
 * WebhookVerifier verifier = WebhookVerifier.of("whsec_...");
 * WebhookVerifier.Result r = verifier.verify(request::getHeader, bodyBytes);
 * if (!r.isValid()) { response.sendError(401, r.message()); return; }
 * }</pre>
 *
 * <p>A request is accepted when it has {@code webhook-id}, {@code webhook-timestamp} and {@code
 * webhook-signature}, its timestamp lies within the tolerance of the clock (either direction,
 * {@link #DEFAULT_TOLERANCE} unless set), and at least one offered {@code v1} signature matches the
 * HMAC of {@code id.timestamp.body} under at least one configured secret. Signatures of other
 * versions (e.g. {@code v1a}) are ignored, as the specification requires. Comparison is constant
 * time ({@link MessageDigest#isEqual}). When a {@code webhook-*} header is absent the {@code
 * svix-*} header of the same role is used, as the reference implementations do.
 *
 * <p>The body must be the raw bytes as received: re-serialised JSON will not verify. Replays within
 * the tolerance window pass the signature check; deduplicate on {@link Result#webhookId()} (e.g.
 * with OutboxKit's {@code Inbox}).
 *
 * <p>The {@code outbox-*} headers are not covered by the signature, so the result does not carry
 * them; read them with {@link WebhookHeaders} (the aggregate version for an inbox's ordering guard
 * with {@link WebhookHeaders#aggregateVersion}).
 *
 * <p>Secrets use the {@code whsec_<base64 key>} format; a bare base64 key is refused (prefix it
 * with {@code whsec_}) so that a wrongly copied value fails at start-up rather than by rejecting
 * every request. A key shorter than {@value WebhookSigner#MIN_SECRET_BYTES} bytes is refused as
 * well, on this side too: signatures made with a short key are easy to forge, and a receiver that
 * accepted them would trust them.
 */
public final class WebhookVerifier {
  /** Largest accepted difference between a request's timestamp and the clock: five minutes. */
  public static final Duration DEFAULT_TOLERANCE = Duration.ofMinutes(5);

  private static final Logger log = LoggerFactory.getLogger(WebhookVerifier.class);

  /** Why a request was refused. */
  public enum Refusal {
    /** {@code webhook-id}, {@code webhook-timestamp} or {@code webhook-signature} is missing. */
    MISSING_HEADER,
    /** {@code webhook-timestamp} is not a non-negative whole number of seconds. */
    MALFORMED_TIMESTAMP,
    /** The timestamp is older than the tolerance allows (a stale or replayed request). */
    TIMESTAMP_TOO_OLD,
    /** The timestamp is further in the future than the tolerance allows. */
    TIMESTAMP_TOO_NEW,
    /** No offered {@code v1} signature matches any configured secret (tampered or wrong key). */
    NO_MATCHING_SIGNATURE
  }

  private final List<SecretKeySpec> keys;
  private final Duration tolerance;
  private final Clock clock;

  private WebhookVerifier(Builder b) {
    this.keys = Secrets.decodeAll(b.secrets);
    this.tolerance = b.tolerance;
    this.clock = b.clock;
    log.info(
        "Webhook verifier ready: secrets={}, tolerance={}, clock={}",
        keys.size(),
        tolerance,
        clock);
  }

  /**
   * A verifier with the default tolerance and the system clock.
   *
   * @param secrets {@code whsec_<base64 key>} values; several while the sender rotates keys
   * @return the verifier
   * @throws OutboxConfigurationException if none is given, or one is malformed or too short
   */
  public static WebhookVerifier of(String... secrets) {
    return builder().secrets(secrets == null ? List.of() : Arrays.asList(secrets)).build();
  }

  /**
   * Starts configuring a verifier; at least one secret is required.
   *
   * @return a builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Verifies a request given its headers as a map, e.g. {@code
   * com.sun.net.httpserver.HttpExchange.getRequestHeaders()} or {@code
   * java.net.http.HttpHeaders.map()}. Names are matched case-insensitively; several values of
   * {@code webhook-signature} are joined.
   *
   * @param headers the request headers
   * @param body the raw request body, exactly as received
   * @return the outcome; never null
   */
  public Result verify(Map<String, ? extends List<String>> headers, byte[] body) {
    Objects.requireNonNull(headers, "headers");
    return verify(name -> lookup(headers, name), body);
  }

  /**
   * Verifies a request given a header lookup, e.g. {@code HttpServletRequest::getHeader}.
   *
   * @param header returns a header's value by name (called with lower-case names; must match
   *     case-insensitively, as servlet containers do), or null when absent
   * @param body the raw request body, exactly as received
   * @return the outcome; never null
   */
  public Result verify(Function<String, String> header, byte[] body) {
    Objects.requireNonNull(header, "header");
    Objects.requireNonNull(body, "body");
    String id = first(header, WebhookHeaders.ID, "svix-id");
    String timestamp = first(header, WebhookHeaders.TIMESTAMP, "svix-timestamp");
    String signatures = first(header, WebhookHeaders.SIGNATURE, "svix-signature");
    Result missing = missingHeader(id, timestamp, signatures);
    if (missing != null) {
      return missing;
    }
    long seconds = parseSeconds(timestamp.trim());
    if (seconds < 0) {
      return Result.refused(
          Refusal.MALFORMED_TIMESTAMP,
          WebhookHeaders.TIMESTAMP + " is not a whole number of unix seconds",
          id);
    }
    Result outside = outsideTolerance(seconds, id);
    if (outside != null) {
      return outside;
    }
    return checkSignatures(id, seconds, signatures, body);
  }

  /** The refusal of a request without one of the three headers, or null when it has them all. */
  private static Result missingHeader(String id, String timestamp, String signatures) {
    if (id == null || id.isEmpty()) {
      return Result.refused(Refusal.MISSING_HEADER, "missing header " + WebhookHeaders.ID, null);
    }
    if (timestamp == null || timestamp.isEmpty()) {
      return Result.refused(
          Refusal.MISSING_HEADER, "missing header " + WebhookHeaders.TIMESTAMP, id);
    }
    if (signatures == null || signatures.isBlank()) {
      return Result.refused(
          Refusal.MISSING_HEADER, "missing header " + WebhookHeaders.SIGNATURE, id);
    }
    return null;
  }

  /** The refusal of a timestamp too far from the clock, or null when it is within tolerance. */
  private Result outsideTolerance(long seconds, String id) {
    long now = clock.instant().getEpochSecond();
    long limit = tolerance.getSeconds();
    if (now - seconds > limit) {
      return Result.refused(
          Refusal.TIMESTAMP_TOO_OLD,
          "timestamp "
              + seconds
              + " is "
              + (now - seconds)
              + " s in the past; tolerance is "
              + limit
              + " s",
          id);
    }
    if (seconds - now > limit) {
      return Result.refused(
          Refusal.TIMESTAMP_TOO_NEW,
          "timestamp "
              + seconds
              + " is "
              + (seconds - now)
              + " s in the future; tolerance is "
              + limit
              + " s",
          id);
    }
    return null;
  }

  /** Valid when an offered v1 signature matches the HMAC under one of the secrets. */
  private Result checkSignatures(String id, long seconds, String signatures, byte[] body) {
    List<byte[]> offered = offeredV1(signatures);
    if (offered.isEmpty()) {
      return Result.refused(
          Refusal.NO_MATCHING_SIGNATURE,
          "no v1 signature offered in " + WebhookHeaders.SIGNATURE,
          id);
    }
    for (SecretKeySpec key : keys) {
      byte[] expected = Hmac.sign(key, id, seconds, body);
      for (byte[] candidate : offered) {
        if (MessageDigest.isEqual(expected, candidate)) {
          return new Result(null, "valid", id, Instant.ofEpochSecond(seconds));
        }
      }
    }
    return Result.refused(
        Refusal.NO_MATCHING_SIGNATURE,
        "none of "
            + offered.size()
            + " v1 signature(s) matches any of "
            + keys.size()
            + " secret(s): body altered or secret wrong",
        id);
  }

  /**
   * Like {@link #verify(Map, byte[])}, but throws when the request is refused.
   *
   * @param headers the request headers
   * @param body the raw request body
   * @return the valid result (carrying the message id and timestamp)
   * @throws WebhookVerificationException with the reason, if refused
   */
  public Result verifyOrThrow(Map<String, ? extends List<String>> headers, byte[] body) {
    return orThrow(verify(headers, body));
  }

  /**
   * Like {@link #verify(Function, byte[])}, but throws when the request is refused.
   *
   * @param header a case-insensitive header lookup
   * @param body the raw request body
   * @return the valid result (carrying the message id and timestamp)
   * @throws WebhookVerificationException with the reason, if refused
   */
  public Result verifyOrThrow(Function<String, String> header, byte[] body) {
    return orThrow(verify(header, body));
  }

  /** Shows the settings; never the secrets. */
  @Override
  public String toString() {
    return "WebhookVerifier[secrets=" + keys.size() + ", tolerance=" + tolerance + "]";
  }

  private static Result orThrow(Result r) {
    if (!r.isValid()) {
      throw new WebhookVerificationException(r.refusal, r.message, r.webhookId);
    }
    return r;
  }

  private static String first(Function<String, String> header, String name, String fallback) {
    String v = header.apply(name);
    return v != null ? v : header.apply(fallback);
  }

  private static String lookup(Map<String, ? extends List<String>> headers, String name) {
    List<String> values = null;
    for (Map.Entry<String, ? extends List<String>> e : headers.entrySet()) {
      if (e.getKey() != null && e.getKey().equalsIgnoreCase(name) && e.getValue() != null) {
        if (values == null) {
          values = new ArrayList<>();
        }
        values.addAll(e.getValue());
      }
    }
    if (values == null || values.isEmpty()) {
      return null;
    }
    // Several signature header lines are one list; for id and timestamp the first one counts.
    return name.endsWith("signature") ? String.join(" ", values) : values.get(0);
  }

  /** Parses unix seconds; -1 when not a plain non-negative number. */
  private static long parseSeconds(String s) {
    if (s.isEmpty() || s.length() > 18) {
      return -1;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
    }
    return Long.parseLong(s);
  }

  private static List<byte[]> offeredV1(String header) {
    List<byte[]> result = new ArrayList<>();
    Base64.Decoder decoder = Base64.getDecoder();
    for (String part : header.trim().split("\\s+")) {
      int comma = part.indexOf(',');
      if (comma < 0 || !part.substring(0, comma).equals("v1")) {
        continue;
      }
      try {
        result.add(decoder.decode(part.substring(comma + 1)));
      } catch (IllegalArgumentException e) {
        // Not base64: cannot match; other entries may still.
      }
    }
    return result;
  }

  /** The outcome of a verification. Immutable. */
  public static final class Result {
    private final Refusal refusal;
    private final String message;
    private final String webhookId;
    private final Instant timestamp;

    private Result(Refusal refusal, String message, String webhookId, Instant timestamp) {
      this.refusal = refusal;
      this.message = message;
      this.webhookId = webhookId;
      this.timestamp = timestamp;
    }

    private static Result refused(Refusal refusal, String message, String webhookId) {
      return new Result(refusal, message, webhookId, null);
    }

    /** {@return true when the request is authentic and fresh} */
    public boolean isValid() {
      return refusal == null;
    }

    /** {@return why the request was refused; empty when valid} */
    public Optional<Refusal> refusal() {
      return Optional.ofNullable(refusal);
    }

    /**
     * {@return a one-line explanation ({@code "valid"} when valid)} Safe to log or return to the
     * sender: it never contains secrets, signatures or body content.
     */
    public String message() {
      return message;
    }

    /**
     * {@return the {@code webhook-id} the request carried, if any: the value to deduplicate on}
     * Only trustworthy when {@link #isValid()}.
     */
    public Optional<String> webhookId() {
      return Optional.ofNullable(webhookId);
    }

    /** {@return the verified timestamp of the request; empty unless valid} */
    public Optional<Instant> timestamp() {
      return Optional.ofNullable(timestamp);
    }

    @Override
    public String toString() {
      return refusal == null ? "valid" : refusal + ": " + message;
    }
  }

  /** Configures a {@link WebhookVerifier}; each option is validated where it is set. */
  public static final class Builder {
    private final List<String> secrets = new ArrayList<>();
    private Duration tolerance = DEFAULT_TOLERANCE;
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    /**
     * Accepts signatures made with this secret. Call once per active secret during rotation.
     *
     * @param secret {@code whsec_<base64 key>}
     * @return this builder
     * @throws OutboxConfigurationException if malformed or its key is shorter than {@link
     *     WebhookSigner#MIN_SECRET_BYTES} bytes (the secret is not repeated)
     */
    public Builder secret(String secret) {
      Secrets.decode(secret);
      secrets.add(secret);
      return this;
    }

    /**
     * Accepts signatures made with any of these secrets.
     *
     * @param secrets {@code whsec_<base64 key>} values
     * @return this builder
     */
    public Builder secrets(List<String> secrets) {
      Objects.requireNonNull(secrets, "secrets").forEach(this::secret);
      return this;
    }

    /**
     * How far a request's timestamp may lie from the clock, in either direction; {@link
     * #DEFAULT_TOLERANCE} unless set. Shorter narrows the replay window, longer tolerates clock
     * skew and queueing.
     *
     * @param tolerance at least one second
     * @return this builder
     */
    public Builder tolerance(Duration tolerance) {
      Objects.requireNonNull(tolerance, "tolerance");
      this.tolerance = Options.atLeastOneSecond("tolerance", tolerance);
      return this;
    }

    /**
     * The clock timestamps are compared with; the system UTC clock unless set.
     *
     * @param clock any clock
     * @return this builder
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Builds the verifier and logs its settings (never the secrets) at INFO.
     *
     * @return the verifier
     * @throws OutboxConfigurationException if no secret was given
     */
    public WebhookVerifier build() {
      return new WebhookVerifier(this);
    }
  }
}
