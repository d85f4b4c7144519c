package dev.outboxkit.http.internal;

import dev.outboxkit.Failures;
import dev.outboxkit.SendResult;
import dev.outboxkit.http.WebhookStatusPolicy;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import javax.net.ssl.SSLException;

/**
 * Reads what one request came to — a status with its headers, or a failure — as the event's result
 * and as news about its endpoint, by the transport's {@link WebhookStatusPolicy}. Reasons name the
 * endpoint without its query string and never quote response bodies or request details.
 */
public final class ResponseClassifier {
  private final WebhookStatusPolicy policy;
  private final Clock clock;
  private final Duration maxRetryAfter;
  private final Duration connectTimeout;
  private final Duration requestTimeout;

  /**
   * @param policy status to verdict
   * @param clock for {@code Retry-After} dates
   * @param maxRetryAfter longest {@code Retry-After} honoured
   * @param connectTimeout the client's connect timeout, for reasons (null: the client's default)
   * @param requestTimeout the request timeout, for reasons
   */
  public ResponseClassifier(
      WebhookStatusPolicy policy,
      Clock clock,
      Duration maxRetryAfter,
      Duration connectTimeout,
      Duration requestTimeout) {
    this.policy = policy;
    this.clock = clock;
    this.maxRetryAfter = maxRetryAfter;
    this.connectTimeout = connectTimeout;
    this.requestTimeout = requestTimeout;
  }

  /**
   * The scope of an endpoint's outage: the relay holds back that endpoint's events only.
   *
   * @param display the endpoint as logs show it
   */
  public static SendResult endpointDown(String reason, String display) {
    return SendResult.unavailable(reason, "webhook endpoint " + display);
  }

  /** What an answer means. */
  public RequestOutcome classify(HttpResponse<?> response, String display) {
    int status = response.statusCode();
    String from = "HTTP " + status + " from " + display + meaning(status);
    WebhookStatusPolicy.Verdict verdict = policy.classify(status);
    if (verdict == null) {
      return RequestOutcome.answered(
          SendResult.retry(from + ": the status policy gave no verdict (a bug in it)", null));
    }
    if (verdict == WebhookStatusPolicy.Verdict.DELIVERED) {
      return RequestOutcome.answered(SendResult.delivered());
    }
    if (verdict == WebhookStatusPolicy.Verdict.REJECT) {
      return RequestOutcome.answered(SendResult.reject(from));
    }
    Duration after =
        RetryAfter.parse(
            response.headers().firstValue("retry-after").orElse(null),
            clock.instant(),
            maxRetryAfter);
    switch (verdict) {
      case ENDPOINT_DOWN:
        return RequestOutcome.outage(endpointDown(from, display), after);
      case ENDPOINT_FAILING:
        return RequestOutcome.outage(SendResult.retry(from, after), after);
      default:
        return RequestOutcome.answered(SendResult.retry(from, after));
    }
  }

  /**
   * What a failed request means: always a retry that counts as the endpoint's outage, and an
   * uncertain one when the request may have reached the endpoint (it was connected, no answer came:
   * a response timeout, a connection cut mid-exchange). A failed connect or TLS handshake sent
   * nothing.
   */
  public RequestOutcome classify(Exception failure, String display) {
    String reason;
    boolean mayHaveArrived = false;
    if (failure instanceof HttpConnectTimeoutException) {
      reason = "cannot connect to " + display + " within " + connectTimeout;
    } else if (failure instanceof HttpTimeoutException) {
      reason = "no response from " + display + " within " + requestTimeout;
      mayHaveArrived = true;
    } else if (failure instanceof ConnectException) {
      reason = "cannot connect to " + display + ": " + Failures.describe(failure);
    } else if (failure instanceof IOException) {
      reason = "request to " + display + " failed: " + Failures.describe(failure);
      mayHaveArrived = !(failure instanceof SSLException);
    } else {
      // A runtime exception's message may quote request details; keep only its type.
      reason = "request to " + display + " failed: " + failure.getClass().getSimpleName();
    }
    SendResult result =
        mayHaveArrived ? SendResult.uncertain(reason) : SendResult.retry(reason, null);
    return RequestOutcome.outage(result, null);
  }

  /** What a status usually means, for the reason an operator reads. */
  static String meaning(int status) {
    if (status >= 300 && status < 400) {
      return ": redirect not followed; fix the endpoint URL";
    }
    switch (status) {
      case 401:
      case 403:
        return ": credentials refused";
      case 404:
        return ": not found";
      case 408:
        return ": request timeout";
      case 410:
        return ": endpoint gone";
      case 429:
        return ": rate limited";
      case 503:
        return ": service unavailable";
      default:
        return "";
    }
  }
}
