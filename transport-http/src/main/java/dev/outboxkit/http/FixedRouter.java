package dev.outboxkit.http;

import dev.outboxkit.OutboxEvent;
import java.util.Collection;
import java.util.List;
import java.util.function.Function;

/**
 * A router whose endpoints are all known when it is made ({@link WebhookRouter#to}, {@link
 * WebhookRouter#byDestination}), so that the transport's builder can check them before it builds:
 * an endpoint it could never send to fails at start-up instead of holding its events.
 */
final class FixedRouter implements WebhookRouter {
  private final Function<OutboxEvent, WebhookEndpoint> route;
  private final List<WebhookEndpoint> endpoints;

  FixedRouter(Function<OutboxEvent, WebhookEndpoint> route, Collection<WebhookEndpoint> endpoints) {
    this.route = route;
    this.endpoints = List.copyOf(endpoints);
  }

  @Override
  public WebhookEndpoint route(OutboxEvent event) {
    return route.apply(event);
  }

  /** Every endpoint the router can return. */
  List<WebhookEndpoint> endpoints() {
    return endpoints;
  }
}
