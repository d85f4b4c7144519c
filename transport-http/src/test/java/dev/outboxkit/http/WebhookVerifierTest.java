package dev.outboxkit.http;

import static dev.outboxkit.http.Events.OTHER_SECRET;
import static dev.outboxkit.http.Events.SECRET;
import static dev.outboxkit.http.WebhookSignerTest.VECTOR_BODY;
import static dev.outboxkit.http.WebhookSignerTest.VECTOR_ID;
import static dev.outboxkit.http.WebhookSignerTest.VECTOR_SIGNATURE;
import static dev.outboxkit.http.WebhookSignerTest.VECTOR_TIMESTAMP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.http.WebhookVerifier.Refusal;
import dev.outboxkit.testkit.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class WebhookVerifierTest {
  static final Instant VECTOR_TIME = Instant.ofEpochSecond(VECTOR_TIMESTAMP);

  final MutableClock clock = new MutableClock(VECTOR_TIME);
  final WebhookVerifier verifier = WebhookVerifier.builder().secret(SECRET).clock(clock).build();

  static Map<String, List<String>> headers(String id, String timestamp, String signature) {
    Map<String, List<String>> h = new HashMap<>();
    if (id != null) {
      h.put("webhook-id", List.of(id));
    }
    if (timestamp != null) {
      h.put("webhook-timestamp", List.of(timestamp));
    }
    if (signature != null) {
      h.put("webhook-signature", List.of(signature));
    }
    return h;
  }

  static Map<String, List<String>> vectorHeaders() {
    return headers(VECTOR_ID, Long.toString(VECTOR_TIMESTAMP), VECTOR_SIGNATURE);
  }

  @Test
  void accepts_the_reference_vector() {
    WebhookVerifier.Result r = verifier.verify(vectorHeaders(), VECTOR_BODY);

    assertThat(r.isValid()).isTrue();
    assertThat(r.refusal()).isEmpty();
    assertThat(r.webhookId()).contains(VECTOR_ID);
    assertThat(r.timestamp()).contains(VECTOR_TIME);
  }

  @Test
  void matches_header_names_in_any_case() {
    Map<String, List<String>> h = new HashMap<>();
    h.put("Webhook-Id", List.of(VECTOR_ID));
    h.put("WEBHOOK-TIMESTAMP", List.of(Long.toString(VECTOR_TIMESTAMP)));
    h.put("webhook-Signature", List.of(VECTOR_SIGNATURE));

    assertThat(verifier.verify(h, VECTOR_BODY).isValid()).isTrue();
    Map<String, String> servletLike = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    servletLike.put("WEBHOOK-ID", VECTOR_ID);
    servletLike.put("Webhook-Timestamp", Long.toString(VECTOR_TIMESTAMP));
    servletLike.put("Webhook-Signature", VECTOR_SIGNATURE);
    assertThat(verifier.verify(servletLike::get, VECTOR_BODY).isValid()).isTrue();
  }

  @Test
  void accepts_when_any_offered_signature_matches_any_secret_during_rotation() {
    String both =
        WebhookSigner.of(OTHER_SECRET, SECRET).sign(VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_BODY);
    String onlyOther =
        WebhookSigner.of(OTHER_SECRET).sign(VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_BODY);
    String ts = Long.toString(VECTOR_TIMESTAMP);

    // Receiver still on the old secret, sender sends old and new.
    assertThat(verifier.verify(headers(VECTOR_ID, ts, both), VECTOR_BODY).isValid()).isTrue();
    // Receiver knows old and new, sender already sends only the new one.
    WebhookVerifier rotating =
        WebhookVerifier.builder().secret(SECRET).secret(OTHER_SECRET).clock(clock).build();
    assertThat(rotating.verify(headers(VECTOR_ID, ts, onlyOther), VECTOR_BODY).isValid()).isTrue();
    // Receiver on the old secret only, sender on the new secret only.
    assertThat(verifier.verify(headers(VECTOR_ID, ts, onlyOther), VECTOR_BODY).refusal())
        .contains(Refusal.NO_MATCHING_SIGNATURE);
  }

  @Test
  void interoperates_with_the_reference_implementations_format() throws Exception {
    // As the reference libraries sign: HMAC over the UTF-8 string id + "." + ts + "." + payload.
    String id = "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W";
    long ts = VECTOR_TIMESTAMP + 10;
    String payload = "{\"type\":\"invoice.paid\",\"data\":{\"amount\":\"12\u20ac\"}}";
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(Base64.getDecoder().decode(SECRET.substring(6)), "HmacSHA256"));
    String sig =
        Base64.getEncoder()
            .encodeToString(
                mac.doFinal((id + "." + ts + "." + payload).getBytes(StandardCharsets.UTF_8)));
    // svix-* names, an asymmetric (v1a) entry first, and a second header line with the match.
    Map<String, List<String>> h = new HashMap<>();
    h.put("svix-id", List.of(id));
    h.put("svix-timestamp", List.of(Long.toString(ts)));
    h.put("svix-signature", List.of("v1a,aGVsbG8= v1,Zm9vYmFy", "v1," + sig));

    assertThat(verifier.verify(h, payload.getBytes(StandardCharsets.UTF_8)).isValid()).isTrue();
    assertThat(WebhookSigner.of(SECRET).sign(id, ts, payload.getBytes(StandardCharsets.UTF_8)))
        .isEqualTo("v1," + sig);
  }

  @Test
  void ignores_signature_versions_other_than_v1() {
    String ts = Long.toString(VECTOR_TIMESTAMP);
    String v1a = "v1a," + VECTOR_SIGNATURE.substring(3);

    WebhookVerifier.Result r = verifier.verify(headers(VECTOR_ID, ts, v1a), VECTOR_BODY);

    assertThat(r.refusal()).contains(Refusal.NO_MATCHING_SIGNATURE);
    assertThat(r.message()).contains("no v1 signature");
  }

  @Test
  void refuses_a_tampered_body_with_no_matching_signature() {
    byte[] tampered = "{\"test\": 2432232315}".getBytes(StandardCharsets.UTF_8);

    WebhookVerifier.Result r = verifier.verify(vectorHeaders(), tampered);

    assertThat(r.isValid()).isFalse();
    assertThat(r.refusal()).contains(Refusal.NO_MATCHING_SIGNATURE);
    assertThat(r.message()).contains("body altered or secret wrong").doesNotContain("2432232315");
  }

  @Test
  void refuses_a_wrong_secret_with_no_matching_signature() {
    WebhookVerifier wrong = WebhookVerifier.builder().secret(OTHER_SECRET).clock(clock).build();

    assertThat(wrong.verify(vectorHeaders(), VECTOR_BODY).refusal())
        .contains(Refusal.NO_MATCHING_SIGNATURE);
  }

  @Test
  void refuses_a_stale_timestamp_outside_the_tolerance() {
    clock.advance(Duration.ofMinutes(5).plusSeconds(1));

    WebhookVerifier.Result r = verifier.verify(vectorHeaders(), VECTOR_BODY);

    assertThat(r.refusal()).contains(Refusal.TIMESTAMP_TOO_OLD);
    assertThat(r.message()).contains("301 s in the past").contains("tolerance is 300 s");
  }

  @Test
  void accepts_a_timestamp_exactly_at_the_tolerance() {
    clock.advance(Duration.ofMinutes(5));

    assertThat(verifier.verify(vectorHeaders(), VECTOR_BODY).isValid()).isTrue();
  }

  @Test
  void refuses_a_timestamp_too_far_in_the_future() {
    clock.advance(Duration.ofMinutes(-6));

    assertThat(verifier.verify(vectorHeaders(), VECTOR_BODY).refusal())
        .contains(Refusal.TIMESTAMP_TOO_NEW);
  }

  @Test
  void honours_a_configured_tolerance() {
    WebhookVerifier strict =
        WebhookVerifier.builder()
            .secret(SECRET)
            .tolerance(Duration.ofSeconds(30))
            .clock(Clock.fixed(VECTOR_TIME.plusSeconds(31), ZoneOffset.UTC))
            .build();

    assertThat(strict.verify(vectorHeaders(), VECTOR_BODY).refusal())
        .contains(Refusal.TIMESTAMP_TOO_OLD);
  }

  @Test
  void refuses_a_missing_header_and_names_it() {
    String ts = Long.toString(VECTOR_TIMESTAMP);

    assertThat(verifier.verify(headers(null, ts, VECTOR_SIGNATURE), VECTOR_BODY).message())
        .isEqualTo("missing header webhook-id");
    assertThat(verifier.verify(headers(VECTOR_ID, null, VECTOR_SIGNATURE), VECTOR_BODY).message())
        .isEqualTo("missing header webhook-timestamp");
    WebhookVerifier.Result r = verifier.verify(headers(VECTOR_ID, ts, null), VECTOR_BODY);
    assertThat(r.refusal()).contains(Refusal.MISSING_HEADER);
    assertThat(r.message()).isEqualTo("missing header webhook-signature");
  }

  @Test
  void refuses_a_malformed_timestamp() {
    for (String ts : List.of("soon", "-1614265330", "1614265330.5", "16142653300000000000000")) {
      assertThat(verifier.verify(headers(VECTOR_ID, ts, VECTOR_SIGNATURE), VECTOR_BODY).refusal())
          .as(ts)
          .contains(Refusal.MALFORMED_TIMESTAMP);
    }
  }

  @Test
  void skips_signatures_that_are_not_base64() {
    String ts = Long.toString(VECTOR_TIMESTAMP);

    assertThat(
            verifier
                .verify(headers(VECTOR_ID, ts, "v1,@@@ " + VECTOR_SIGNATURE), VECTOR_BODY)
                .isValid())
        .isTrue();
  }

  @Test
  void verifyOrThrow_throws_with_the_reason() {
    clock.advance(Duration.ofHours(1));

    assertThatThrownBy(() -> verifier.verifyOrThrow(vectorHeaders(), VECTOR_BODY))
        .isInstanceOfSatisfying(
            WebhookVerificationException.class,
            e -> {
              assertThat(e.refusal()).isEqualTo(Refusal.TIMESTAMP_TOO_OLD);
              assertThat(e.webhookId()).contains(VECTOR_ID);
            });
  }

  @Test
  void verifyOrThrow_returns_the_valid_result() {
    assertThat(verifier.verifyOrThrow(vectorHeaders(), VECTOR_BODY).webhookId())
        .contains(VECTOR_ID);
  }

  @Test
  void refuses_bad_configuration_at_build_time() {
    assertThatThrownBy(() -> WebhookVerifier.builder().build())
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("at least one webhook secret");
    assertThatThrownBy(() -> WebhookVerifier.builder().secret("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageNotContaining("MfKQ9r8G");
    assertThatThrownBy(() -> WebhookVerifier.of("whsec_YWJj"))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("key is 3 byte(s), Standard Webhooks asks for at least 24")
        .hasMessageContaining("generateSecret()")
        .hasMessageNotContaining("YWJj");
    assertThatThrownBy(() -> WebhookVerifier.builder().secret(SECRET).secret("whsec_YWJj"))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("key is 3 byte(s)");
    assertThatThrownBy(() -> WebhookVerifier.builder().tolerance(Duration.ZERO))
        .isInstanceOf(OutboxConfigurationException.class);
  }

  @Test
  void toString_does_not_reveal_secrets() {
    assertThat(verifier.toString()).doesNotContain("MfKQ9r8G").contains("secrets=1");
  }
}
