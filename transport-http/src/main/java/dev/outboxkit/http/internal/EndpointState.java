package dev.outboxkit.http.internal;

import java.util.concurrent.atomic.AtomicBoolean;

/** What the transport keeps between batches for one endpoint URL. */
final class EndpointState {
  final CircuitBreaker breaker = new CircuitBreaker();

  /** The endpoint's refusal was logged (once per endpoint). */
  final AtomicBoolean refusalLogged = new AtomicBoolean();

  /**
   * The address check refuses the endpoint now, and that was logged: set by the first batch that
   * meets the refusal, cleared by the first that passes, so each such outage is logged once.
   */
  final AtomicBoolean addressRefused = new AtomicBoolean();
}
