package dev.outboxkit.http;

import dev.outboxkit.OutboxEvent;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Chooses the endpoint of each event, e.g. by {@link OutboxEvent#destination()}, {@link
 * OutboxEvent#aggregateType()} or {@link OutboxEvent#tenant()}. Called for every message of every
 * batch, from the relay's thread; must be thread-safe and fast (cache endpoint lookups).
 *
 * <p>Returning null means "this event has no endpoint": it is rejected (quarantined as DEAD with
 * that reason, replayable once an endpoint exists). An exception thrown by the router (say, a
 * failed lookup in a tenant registry) makes the event retry.
 *
 * <p>The circuit breaker, the in-flight limit and the address check are kept per endpoint URL, so a
 * router may build new {@link WebhookEndpoint} objects per call.
 *
 * <p>The endpoints of {@link #to} and {@link #byDestination} are known when the transport is built,
 * which then checks them at once (scheme, and an IP-literal or {@code localhost} host against
 * {@link WebhookTransport.Builder#allowPrivateAddresses()}); a router of your own is checked per
 * batch, at send time.
 */
@FunctionalInterface
public interface WebhookRouter {

  /**
   * Chooses the endpoint for an event.
   *
   * @param event the event to deliver
   * @return its endpoint, or null if it has none
   */
  WebhookEndpoint route(OutboxEvent event);

  /**
   * Sends every event to one endpoint.
   *
   * @param endpoint the endpoint
   * @return the router
   */
  static WebhookRouter to(WebhookEndpoint endpoint) {
    Objects.requireNonNull(endpoint, "endpoint");
    return new FixedRouter(event -> endpoint, List.of(endpoint));
  }

  /**
   * Routes by {@link OutboxEvent#destination()}: events without a destination, or with one not in
   * the map, have no endpoint.
   *
   * @param endpoints destination name to endpoint; copied
   * @return the router, whose endpoints the transport's builder checks
   */
  static WebhookRouter byDestination(Map<String, WebhookEndpoint> endpoints) {
    Map<String, WebhookEndpoint> copy = Map.copyOf(endpoints);
    return new FixedRouter(event -> event.destination().map(copy::get).orElse(null), copy.values());
  }
}
