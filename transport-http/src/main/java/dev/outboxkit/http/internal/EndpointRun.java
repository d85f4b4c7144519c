package dev.outboxkit.http.internal;

import dev.outboxkit.SendResult;
import dev.outboxkit.http.internal.CircuitBreaker.Admission;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/** One endpoint's share of one batch; guarded by the batch's monitor. */
final class EndpointRun {
  final URI url;
  final String display;
  final EndpointState state;
  final List<Integer> indices = new ArrayList<>();
  final ArrayDeque<Integer> parked = new ArrayDeque<>();
  Admission admission = Admission.CLOSED;
  String refusal;
  String openReason;
  String resolveFailure;
  String addressRefusal;
  String stopped;
  boolean gaveUp;
  boolean responsive;
  boolean settled;
  int workers;
  int inFlight;
  int unsettled; // messages of the run without a result yet
  int attempted;
  int outageFailures;
  String lastFailure = "";
  Duration retryAfterHint = Duration.ZERO;

  private final int maxInFlight;

  EndpointRun(URI url, EndpointState state, int maxInFlight) {
    this.url = url;
    this.display = Urls.display(url);
    this.state = state;
    this.maxInFlight = maxInFlight;
  }

  /**
   * This endpoint's outage, as an answer about it alone: the relay holds back its events and goes
   * on with the other endpoints' ({@code SendResult.unavailable(reason, scope)}).
   */
  SendResult down(String reason) {
    return ResponseClassifier.endpointDown(reason, display);
  }

  /**
   * How many requests may be in flight now: none while the endpoint has failed as an outage and
   * never answered (wait for those in flight), one while probing a half-open breaker.
   */
  int slots() {
    if (outageFailures > 0 && !responsive) {
      return 0;
    }
    return admission == Admission.PROBE && !responsive ? 1 : maxInFlight;
  }

  String unavailableReason() {
    if (stopped != null) {
      return stopped;
    }
    if (openReason != null) {
      return openReason;
    }
    if (resolveFailure != null) {
      return resolveFailure;
    }
    if (addressRefusal != null) {
      return addressRefusal;
    }
    if (gaveUp) {
      return "endpoint "
          + display
          + " not tried further in this batch after "
          + outageFailures
          + " failed request(s), last: "
          + lastFailure;
    }
    return null;
  }
}
