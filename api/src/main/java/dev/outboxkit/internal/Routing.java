package dev.outboxkit.internal;

import dev.outboxkit.OutboxEvent;
import java.util.function.Function;

/**
 * Where a transport that routes by name sends an event, with the precedence every OutboxKit
 * transport shares: the user's router, if it answers; else the event's destination; else a prefix
 * followed by the aggregate type.
 */
public final class Routing {
  private Routing() {}

  /**
   * The route of an event.
   *
   * @param event the event
   * @param router the user's router, or null; a null answer defers to the event
   * @param prefix put before the aggregate type when the event names no destination
   * @param byName the route a name stands for
   * @param <T> the transport's kind of route
   * @return where the event goes
   * @throws RuntimeException whatever the router throws
   */
  public static <T> T route(
      OutboxEvent event,
      Function<OutboxEvent, T> router,
      String prefix,
      Function<String, T> byName) {
    if (router != null) {
      T routed = router.apply(event);
      if (routed != null) {
        return routed;
      }
    }
    return byName.apply(event.destination().orElseGet(() -> prefix + event.aggregateType()));
  }
}
