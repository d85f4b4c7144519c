package dev.outboxkit.http.internal;

import dev.outboxkit.Failures;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.http.WebhookEndpoint;
import dev.outboxkit.http.internal.CircuitBreaker.Admission;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One batch of a webhook transport ({@code sendBatch} or {@code sendBatchAsync}). Worker threads
 * from the transport's pool send with the client's blocking {@code send}: on JDK 17 that path costs
 * several times less per request than {@code sendAsync}, whose completions hop through the client's
 * executor. A worker takes the messages parked at its endpoint one after another. All bookkeeping
 * happens under this object's monitor; futures are completed outside it, since whoever waits on
 * them may call back (a cancel).
 *
 * <p>A result is final, and its future completed, as soon as nothing can change it: once its
 * endpoint answered any request of the batch (an endpoint that answers is not down), or once every
 * request to its endpoint ended (then the endpoint's verdict, down or not, is known). So a fast
 * endpoint's events complete while a slow one's requests are still open.
 */
final class WebhookBatch {
  private static final Logger log = LoggerFactory.getLogger("dev.outboxkit.http.WebhookTransport");

  final List<OutboxMessage> messages;
  final SendResult[] results;
  final boolean[] sending;
  final boolean[] released;
  final WebhookEndpoint[] endpointOf;
  final EndpointRun[] runOf;
  final List<CompletableFuture<SendResult>> futures;
  final Map<URI, EndpointRun> runs = new LinkedHashMap<>();
  final List<Future<?>> workers = new ArrayList<>();
  final ArrayDeque<Integer> ready = new ArrayDeque<>();
  // The thread waiting in sendBatch, whose interrupt stops the batch; null for sendBatchAsync,
  // which a cancelled future stops. Workers read it before each request, so that no request
  // starts between the interrupt and the caller taking the monitor back to abandon the batch.
  final Thread caller;
  int activeWorkers;
  int releasedCount;
  boolean abandoned;

  private final WebhookEngine engine;

  WebhookBatch(WebhookEngine engine, List<OutboxMessage> messages, Thread caller) {
    this.engine = engine;
    this.messages = messages;
    this.caller = caller;
    int n = messages.size();
    this.results = new SendResult[n];
    this.sending = new boolean[n];
    this.released = new boolean[n];
    this.endpointOf = new WebhookEndpoint[n];
    this.runOf = new EndpointRun[n];
    this.futures = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      futures.add(new CompletableFuture<>());
    }
  }

  /** Routes, checks and starts the requests; returns at once, one future per message. */
  List<CompletableFuture<SendResult>> start() {
    route();
    for (EndpointRun run : runs.values()) {
      prepare(run);
    }
    synchronized (this) {
      for (int i = 0; i < messages.size(); i++) {
        park(i);
      }
      for (int i = 0; i < messages.size(); i++) {
        if (runOf[i] == null) {
          release(i); // a routing failure
        }
      }
      for (EndpointRun run : runs.values()) {
        if (run.unsettled == 0) {
          finish(run); // refused or down: no request
        }
      }
      // Interrupted already (while routing, or resolving hosts, which DNS does not let an
      // interrupt cut short): start nothing.
      if (stopRequested()) {
        abandonAll();
      } else {
        dispatch();
      }
    }
    flush();
    for (CompletableFuture<SendResult> f : futures) {
      f.whenComplete(
          (r, t) -> {
            if (t instanceof CancellationException) {
              cancelled();
            }
          });
    }
    return futures;
  }

  /** Waits for every result; on an interrupt, abandons the rest (see the class comment). */
  List<SendResult> execute() {
    start();
    List<SendResult> all;
    synchronized (this) {
      try {
        while (releasedCount < results.length) {
          wait();
        }
      } catch (InterruptedException e) {
        abandonAll();
        Thread.currentThread().interrupt();
      }
      all = new ArrayList<>(Arrays.asList(results));
    }
    flush();
    return all;
  }

  private boolean stopRequested() {
    return abandoned || (caller != null && caller.isInterrupted());
  }

  /** A future was cancelled: whoever waits for the batch gave up on it. */
  private void cancelled() {
    synchronized (this) {
      abandonAll();
    }
    flush();
  }

  /**
   * Return now, without waiting for the requests in flight: tell the workers (and, through their
   * interrupts, the HTTP client) that nobody is listening any more. What was answered keeps its
   * result; whatever is unsettled may or may not have arrived. Under the monitor.
   */
  private void abandonAll() {
    if (abandoned) {
      return;
    }
    abandoned = true;
    workers.forEach(f -> f.cancel(true));
    for (int i = 0; i < results.length; i++) {
      if (results[i] == null) {
        results[i] =
            SendResult.unavailable(
                sending[i]
                    ? "not confirmed: interrupted before "
                        + runOf[i].display
                        + " answered; it may have received the request"
                    : "not confirmed: interrupted before it was sent");
      }
      release(i);
    }
    // Half a batch says nothing about an endpoint: no breaker changes state.
    for (EndpointRun run : runs.values()) {
      releaseProbe(run);
    }
    notifyAll();
  }

  /** Marks a result final; its future is completed by {@link #flush}. Under the monitor. */
  private void release(int i) {
    if (!released[i]) {
      released[i] = true;
      releasedCount++;
      ready.addLast(i);
      if (releasedCount == results.length) {
        notifyAll();
      }
    }
  }

  /** Completes the futures of the results made final, outside the monitor. */
  private void flush() {
    while (true) {
      int i;
      SendResult r;
      synchronized (this) {
        if (ready.isEmpty()) {
          return;
        }
        i = ready.pollFirst();
        r = results[i];
      }
      futures.get(i).complete(r);
    }
  }

  /** A result came in for one of the run's messages. Under the monitor. */
  private void settled(EndpointRun run, int i) {
    run.unsettled--;
    if (run.unsettled == 0) {
      finish(run);
    } else if (run.responsive) {
      for (int k : run.indices) {
        if (results[k] != null) {
          release(k);
        }
      }
    }
  }

  /** Every request of the run ended: the endpoint's verdict, then its results. */
  private void finish(EndpointRun run) {
    settle(run);
    for (int k : run.indices) {
      release(k);
    }
  }

  private void releaseProbe(EndpointRun run) {
    if (run.admission == Admission.PROBE && !run.settled) {
      run.settled = true;
      run.state.breaker.releaseProbe();
    }
  }

  private void route() {
    for (int i = 0; i < messages.size(); i++) {
      OutboxEvent e = messages.get(i).event();
      WebhookEndpoint endpoint;
      try {
        endpoint = engine.router.route(e);
      } catch (RuntimeException ex) {
        results[i] = SendResult.retry("webhook router failed: " + Failures.describe(ex), null);
        continue;
      }
      if (endpoint == null) {
        results[i] =
            SendResult.reject(
                "no webhook endpoint for event type "
                    + e.eventType()
                    + e.destination().map(d -> ", destination " + d).orElse(""));
        continue;
      }
      endpointOf[i] = endpoint;
      EndpointRun run =
          runs.computeIfAbsent(
              endpoint.url(),
              u -> new EndpointRun(u, engine.state(u), engine.maxInFlightPerEndpoint));
      run.indices.add(i);
      run.unsettled++;
      runOf[i] = run;
    }
  }

  /** Breaker first (cheap), then scheme and addresses, before any connection. */
  private void prepare(EndpointRun run) {
    run.admission = run.state.breaker.admit(engine.clock.instant());
    if (run.admission == Admission.OPEN) {
      run.openReason =
          "circuit open for "
              + run.display
              + " until "
              + run.state.breaker.openUntil()
              + ", last failure: "
              + run.state.breaker.lastFailure();
      return;
    }
    DestinationGuard.Verdict verdict = engine.guard.check(run.url, run.display);
    run.resolveFailure = verdict.resolveFailure;
    if (verdict.refusal != null) {
      run.refusal = verdict.refusal;
      if (run.state.refusalLogged.compareAndSet(false, true)) {
        log.warn("[{}] Refusing webhook destination: {}", engine.name, verdict.refusal);
      }
    }
    if (verdict.addressRefusal != null) {
      // Not the events' fault: a configuration mistake, or a DNS answer that may change. Held as
      // the endpoint's outage (the relay's growing pauses space the re-checks; no request is made,
      // so the breaker stays out of it), and loud once per outage, since only an operator ends it.
      run.addressRefusal = verdict.addressRefusal;
      if (run.state.addressRefused.compareAndSet(false, true)) {
        log.error(
            "[{}] Webhook endpoint {} refused by the address check: {}. Its events are held,"
                + " no attempt charged, and checked again each time the relay retries them",
            engine.name,
            run.display,
            verdict.addressRefusal);
      }
    } else if (verdict.allowed() && run.state.addressRefused.compareAndSet(true, false)) {
      log.info(
          "[{}] Webhook endpoint {} passes the address check again; its held events are sent",
          engine.name,
          run.display);
    }
  }

  /**
   * Settles a message that needs no request (its endpoint refused or down), or parks it at its
   * endpoint for a worker. Under the monitor.
   */
  private void park(int i) {
    if (results[i] != null) {
      return; // settled already: a routing failure
    }
    EndpointRun run = runOf[i];
    String unavailable = run.unavailableReason();
    if (run.refusal != null) {
      results[i] = SendResult.reject(run.refusal);
      run.unsettled--;
    } else if (unavailable != null) {
      results[i] = run.down(unavailable);
      run.unsettled--;
    } else {
      run.parked.addLast(i);
    }
  }

  /**
   * Starts workers where messages wait and limits allow, and gives up on endpoints that are paused
   * by an outage with nothing left in flight that could prove them alive. Afterwards, either a
   * worker is active or nothing is parked. Under the monitor.
   */
  private void dispatch() {
    boolean changed = true;
    while (changed && !stopRequested()) {
      changed = false;
      for (EndpointRun run : runs.values()) {
        // Workers not holding a request are about to take a parked message themselves.
        while (run.parked.size() > run.workers - run.inFlight
            && run.workers < run.slots()
            && activeWorkers < engine.maxInFlight) {
          if (!spawn(run)) {
            stopAll("Webhook transport '" + engine.name + "' is closed");
            return;
          }
        }
        if (!run.parked.isEmpty() && run.workers == 0 && run.slots() == 0) {
          run.gaveUp = true;
          giveUp(run);
          changed = true;
        }
      }
    }
  }

  /** Settles the messages still parked at an endpoint without a request. Under the monitor. */
  private void giveUp(EndpointRun run) {
    while (!run.parked.isEmpty()) {
      park(run.parked.pollFirst());
    }
    if (run.unsettled == 0) {
      finish(run);
    }
  }

  private boolean spawn(EndpointRun run) {
    try {
      workers.add(engine.pool.submit(() -> work(run)));
    } catch (RejectedExecutionException e) {
      return false; // closed meanwhile
    }
    run.workers++;
    activeWorkers++;
    return true;
  }

  private void stopAll(String reason) {
    for (EndpointRun run : runs.values()) {
      run.stopped = reason;
    }
    for (EndpointRun run : runs.values()) {
      if (!run.parked.isEmpty()) {
        giveUp(run);
      }
    }
  }

  /** A worker: takes the messages parked at its endpoint and sends them one by one. */
  private void work(EndpointRun run) {
    int i = -1;
    try {
      while (true) {
        synchronized (this) {
          if (stopRequested() || run.parked.isEmpty() || run.inFlight >= run.slots()) {
            return;
          }
          i = run.parked.pollFirst();
          run.inFlight++;
          sending[i] = true;
        }
        RequestOutcome outcome = sendOne(run, i);
        synchronized (this) {
          run.inFlight--;
          sending[i] = false;
          int done = i;
          i = -1;
          if (!abandoned) {
            record(run, done, outcome);
            dispatch();
          }
        }
        flush();
      }
    } catch (RuntimeException | Error e) {
      log.error("[{}] Webhook worker failed unexpectedly", engine.name, e);
      synchronized (this) {
        if (i >= 0) {
          run.inFlight--;
          if (!abandoned) {
            results[i] = SendResult.retry("webhook worker failed: " + Failures.describe(e), null);
            settled(run, i);
          }
        }
      }
      throw e;
    } finally {
      synchronized (this) {
        run.workers--;
        activeWorkers--;
        if (!abandoned) {
          dispatch();
        }
        notifyAll();
      }
      flush();
    }
  }

  /** Builds, signs, sends and classifies one message; runs outside the monitor. */
  private RequestOutcome sendOne(EndpointRun run, int i) {
    OutboxMessage message = messages.get(i);
    HttpRequest request;
    try {
      request = engine.requests.build(endpointOf[i], run.url, message);
    } catch (RuntimeException e) {
      // The JDK's message quotes the offending header value; keep it out of the reason.
      return RequestOutcome.notSent(
          SendResult.reject(
              "event cannot be sent as an HTTP request ("
                  + e.getClass().getSimpleName()
                  + " while building it: a header HTTP cannot carry)"));
    }
    try {
      return engine.classifier.classify(engine.client.send(request, engine.discard), run.display);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return RequestOutcome.notSent(
          SendResult.retry("not confirmed: interrupted before " + run.display + " answered", null));
    } catch (IOException | RuntimeException e) {
      return engine.classifier.classify(e, run.display);
    }
  }

  /** Under the monitor. */
  private void record(EndpointRun run, int i, RequestOutcome outcome) {
    results[i] = outcome.result;
    if (outcome.sent) {
      run.attempted++;
      if (outcome.outage) {
        run.outageFailures++;
        run.lastFailure = outcome.result.reason().orElse("");
        if (outcome.retryAfter != null && outcome.retryAfter.compareTo(run.retryAfterHint) > 0) {
          run.retryAfterHint = outcome.retryAfter;
        }
      } else {
        run.responsive = true;
      }
    }
    if (log.isTraceEnabled()) {
      OutboxEvent e = messages.get(i).event();
      log.trace(
          "[{}] Event {} ({}/{}) to {}: {}",
          engine.name,
          e.id(),
          e.aggregateType(),
          e.aggregateId(),
          run.display,
          outcome.result);
    }
    settled(run, i);
  }

  /**
   * Applies the endpoint's verdict, once every request to it ended, to its breaker and, if it is
   * down, to its results. Under the monitor.
   */
  private void settle(EndpointRun run) {
    if (abandoned) {
      return; // half a batch says nothing about the endpoint
    }
    boolean outage = run.resolveFailure != null || (run.attempted > 0 && !run.responsive);
    if (outage) {
      String last = run.resolveFailure != null ? run.resolveFailure : run.lastFailure;
      String reason =
          run.resolveFailure != null
              ? run.resolveFailure
              : "endpoint "
                  + run.display
                  + " unavailable: "
                  + run.outageFailures
                  + " of "
                  + run.attempted
                  + " request(s) failed, last: "
                  + last;
      Duration openFor =
          run.retryAfterHint.compareTo(engine.circuitOpenDuration) > 0
              ? run.retryAfterHint
              : engine.circuitOpenDuration;
      Instant until = engine.clock.instant().plus(openFor);
      if (run.state.breaker.recordOutage(until, last)) {
        log.warn(
            "[{}] Webhook endpoint {} is down ({}); its events are answered unavailable until"
                + " a probe after {} succeeds",
            engine.name,
            run.display,
            last,
            until);
      } else {
        log.debug("[{}] Webhook endpoint {} still down: {}", engine.name, run.display, last);
      }
      run.settled = true;
      for (int i : run.indices) {
        SendResult r = results[i];
        if (r != null
            && (r.status() == SendResult.Status.RETRY
                || r.status() == SendResult.Status.UNAVAILABLE)) {
          results[i] = run.down(reason);
        }
      }
    } else if (run.responsive) {
      run.settled = true;
      if (run.state.breaker.recordResponsive()) {
        log.info(
            "[{}] Webhook endpoint {} answers again; circuit closed", engine.name, run.display);
      }
    }
    releaseProbe(run); // a probe that proved nothing either way
  }
}
