package dev.outboxkit.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.SendResult;
import dev.outboxkit.SendResult.Status;
import dev.outboxkit.http.WebhookStatusPolicy;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every row of the status and failure table, without a server. */
class ResponseClassifierTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2030-01-01T00:00:00Z"), ZoneOffset.UTC);
  private final ResponseClassifier classifier =
      new ResponseClassifier(
          WebhookStatusPolicy.STANDARD,
          CLOCK,
          Duration.ofHours(1),
          Duration.ofSeconds(5),
          Duration.ofSeconds(15));

  /** Columns: status, Retry-After (or empty), result, counts as the endpoint's outage, scoped. */
  @ParameterizedTest(name = "HTTP {0} {1}")
  @CsvSource({
    "200, ,    DELIVERED,   false, false",
    "204, ,    DELIVERED,   false, false",
    "401, ,    UNAVAILABLE, true,  true",
    "403, ,    UNAVAILABLE, true,  true",
    "404, ,    RETRY,       true,  false",
    "500, ,    RETRY,       true,  false",
    "503, 120, RETRY,       true,  false",
    "410, ,    REJECT,      false, false",
    "302, ,    RETRY,       false, false",
    "408, ,    RETRY,       false, false",
    "429, 7,   RETRY,       false, false",
    "422, ,    RETRY,       false, false",
  })
  void reads_a_status(
      int status, String retryAfter, Status result, boolean outage, boolean scoped) {
    RequestOutcome o = classifier.classify(response(status, retryAfter), "https://x/in");

    assertThat(o.result.status()).isEqualTo(result);
    assertThat(o.sent).isTrue();
    assertThat(o.outage).isEqualTo(outage);
    assertThat(o.result.scope())
        .isEqualTo(scoped ? Optional.of("webhook endpoint https://x/in") : Optional.empty());
    if (retryAfter != null) {
      assertThat(o.result.retryAfter()).contains(Duration.ofSeconds(Long.parseLong(retryAfter)));
    }
    if (result != Status.DELIVERED) {
      assertThat(o.result.reason().orElseThrow())
          .startsWith("HTTP " + status + " from https://x/in");
    }
  }

  @Test
  void names_what_a_status_usually_means() {
    assertThat(ResponseClassifier.meaning(301))
        .isEqualTo(": redirect not followed; fix the endpoint URL");
    assertThat(ResponseClassifier.meaning(429)).isEqualTo(": rate limited");
    assertThat(ResponseClassifier.meaning(418)).isEmpty();
  }

  @Test
  void a_policy_without_a_verdict_is_a_retry_naming_the_bug() {
    ResponseClassifier broken =
        new ResponseClassifier(
            status -> null, CLOCK, Duration.ofHours(1), null, Duration.ofSeconds(1));

    SendResult r = broken.classify(response(200, null), "x").result;

    assertThat(r.status()).isEqualTo(Status.RETRY);
    assertThat(r.reason().orElseThrow())
        .endsWith("the status policy gave no verdict (a bug in it)");
  }

  @Test
  void a_failed_request_is_a_retry_that_counts_as_the_endpoints_outage() {
    assertThat(reason(new HttpConnectTimeoutException("t")))
        .isEqualTo("cannot connect to x within PT5S");
    assertThat(reason(new HttpTimeoutException("t"))).isEqualTo("no response from x within PT15S");
    assertThat(reason(new ConnectException("refused"))).startsWith("cannot connect to x: ");
    assertThat(reason(new IOException("reset"))).startsWith("request to x failed: ");
    // A runtime exception's message may quote request details: only its type is kept.
    assertThat(reason(new IllegalStateException("secret=abc")))
        .isEqualTo("request to x failed: IllegalStateException");
  }

  @Test
  void a_request_that_was_connected_but_got_no_answer_may_have_arrived() {
    assertThat(uncertain(new HttpTimeoutException("t"))).isTrue();
    assertThat(uncertain(new IOException("connection reset"))).isTrue();
    assertThat(uncertain(new HttpConnectTimeoutException("t"))).isFalse();
    assertThat(uncertain(new ConnectException("refused"))).isFalse();
    assertThat(uncertain(new javax.net.ssl.SSLHandshakeException("bad certificate"))).isFalse();
    assertThat(uncertain(new IllegalStateException("x"))).isFalse();
  }

  private boolean uncertain(Exception failure) {
    return classifier.classify(failure, "x").result.isUncertain();
  }

  private String reason(Exception failure) {
    RequestOutcome o = classifier.classify(failure, "x");
    assertThat(o.outage).isTrue();
    assertThat(o.result.status()).isEqualTo(Status.RETRY);
    return o.result.reason().orElseThrow();
  }

  private static HttpResponse<Void> response(int status, String retryAfter) {
    HttpHeaders headers =
        HttpHeaders.of(
            retryAfter == null ? Map.of() : Map.of("retry-after", List.of(retryAfter)),
            (k, v) -> true);
    return new HttpResponse<>() {
      @Override
      public int statusCode() {
        return status;
      }

      @Override
      public HttpRequest request() {
        return HttpRequest.newBuilder(URI.create("https://x/in")).build();
      }

      @Override
      public Optional<HttpResponse<Void>> previousResponse() {
        return Optional.empty();
      }

      @Override
      public HttpHeaders headers() {
        return headers;
      }

      @Override
      public Void body() {
        return null;
      }

      @Override
      public Optional<SSLSession> sslSession() {
        return Optional.empty();
      }

      @Override
      public URI uri() {
        return URI.create("https://x/in");
      }

      @Override
      public HttpClient.Version version() {
        return HttpClient.Version.HTTP_1_1;
      }
    };
  }
}
