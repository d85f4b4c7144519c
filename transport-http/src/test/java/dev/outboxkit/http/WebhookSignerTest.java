package dev.outboxkit.http;

import static dev.outboxkit.http.Events.OTHER_SECRET;
import static dev.outboxkit.http.Events.SECRET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.OutboxConfigurationException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class WebhookSignerTest {
  static final String VECTOR_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
  static final long VECTOR_TIMESTAMP = 1614265330L;
  static final byte[] VECTOR_BODY = "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8);
  static final String VECTOR_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

  @Test
  void signs_the_reference_vector() {
    WebhookSigner signer = WebhookSigner.of(SECRET);

    assertThat(signer.sign(VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_BODY)).isEqualTo(VECTOR_SIGNATURE);
  }

  @Test
  void headers_carry_id_timestamp_and_signature() {
    Map<String, String> headers =
        WebhookSigner.of(SECRET)
            .headers(VECTOR_ID, Instant.ofEpochSecond(VECTOR_TIMESTAMP, 999_000_000), VECTOR_BODY);

    assertThat(headers)
        .containsExactly(
            Map.entry("webhook-id", VECTOR_ID),
            Map.entry("webhook-timestamp", "1614265330"),
            Map.entry("webhook-signature", VECTOR_SIGNATURE));
  }

  @Test
  void signs_once_per_secret_during_rotation() {
    String header =
        WebhookSigner.of(OTHER_SECRET, SECRET).sign(VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_BODY);

    String[] parts = header.split(" ");
    assertThat(parts).hasSize(2);
    assertThat(parts[0]).startsWith("v1,").isNotEqualTo(VECTOR_SIGNATURE);
    assertThat(parts[1]).isEqualTo(VECTOR_SIGNATURE);
  }

  @Test
  void signs_binary_bodies_byte_for_byte() throws Exception {
    byte[] body = {(byte) 0xff, 0, (byte) 0xc3, 0x28, '.', 10};
    String header = WebhookSigner.of(SECRET).sign("id-1", 42, body);

    // The same computation written out independently, as the reference libraries do it.
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(Base64.getDecoder().decode(SECRET.substring(6)), "HmacSHA256"));
    mac.update("id-1.42.".getBytes(StandardCharsets.US_ASCII));
    String expected = "v1," + Base64.getEncoder().encodeToString(mac.doFinal(body));
    assertThat(header).isEqualTo(expected);
  }

  @Test
  void refuses_a_secret_without_the_whsec_prefix_without_echoing_it() {
    String bare = SECRET.substring(6);

    assertThatThrownBy(() -> WebhookSigner.of(bare))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("whsec_")
        .hasMessageNotContaining(bare)
        .hasMessageNotContaining(bare.substring(0, 8));
  }

  @Test
  void refuses_a_secret_that_is_not_base64_without_echoing_it() {
    String bad = "whsec_not base64 at all!";

    assertThatThrownBy(() -> WebhookSigner.of(bad))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("base64")
        .hasMessageNotContaining("not base64 at all")
        .hasNoCause();
  }

  @Test
  void refuses_no_secret_and_an_empty_key() {
    assertThatThrownBy(() -> WebhookSigner.of()).isInstanceOf(OutboxConfigurationException.class);
    assertThatThrownBy(() -> WebhookSigner.of("whsec_"))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("empty");
  }

  @Test
  void refuses_a_key_under_24_bytes_naming_its_size_and_how_to_make_one_without_echoing_it() {
    // whsec_YWJj is the 3-byte key "abc"; 23 bytes is one short of the minimum.
    String threeBytes = "whsec_YWJj";
    String twentyThree = "whsec_" + Base64.getEncoder().encodeToString(new byte[23]);

    assertThatThrownBy(() -> WebhookSigner.of(threeBytes))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("key is 3 byte(s)")
        .hasMessageContaining("at least 24")
        .hasMessageContaining("WebhookSigner.generateSecret()")
        .hasMessageContaining("openssl rand -base64 32")
        .hasMessageNotContaining("YWJj");
    assertThatThrownBy(() -> WebhookSigner.of(SECRET, twentyThree))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("key is 23 byte(s)")
        .hasMessageNotContaining(twentyThree.substring(6, 14));
    assertThatThrownBy(() -> WebhookEndpoint.of(URI.create("https://example.com/"), threeBytes))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("key is 3 byte(s)");
    assertThatThrownBy(() -> WebhookTransport.builder(URI.create("https://x.example/"), threeBytes))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("key is 3 byte(s)");
  }

  @Test
  void accepts_keys_of_24_bytes_and_longer_than_64() {
    String twentyFour = "whsec_" + Base64.getEncoder().encodeToString(new byte[24]);
    String hundred = "whsec_" + Base64.getEncoder().encodeToString(new byte[100]);

    assertThat(WebhookSigner.of(twentyFour, hundred).secretCount()).isEqualTo(2);
  }

  @Test
  void generates_distinct_32_byte_secrets_that_sign_and_verify() {
    String secret = WebhookSigner.generateSecret();
    String other = WebhookSigner.generateSecret();

    assertThat(secret).startsWith("whsec_").isNotEqualTo(other);
    assertThat(Base64.getDecoder().decode(secret.substring(6))).hasSize(32);
    byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
    Instant now = Instant.now();
    Map<String, String> headers = WebhookSigner.of(secret).headers("msg_1", now, body);
    assertThat(WebhookVerifier.of(secret).verify(headers::get, body).isValid()).isTrue();
    assertThat(WebhookVerifier.of(other).verify(headers::get, body).isValid()).isFalse();
  }

  @Test
  void toString_does_not_reveal_secrets() {
    assertThat(WebhookSigner.of(SECRET, OTHER_SECRET).toString())
        .isEqualTo("WebhookSigner[secrets=2]")
        .doesNotContain(SECRET.substring(6, 14));
  }
}
