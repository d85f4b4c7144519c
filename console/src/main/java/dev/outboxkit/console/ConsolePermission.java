package dev.outboxkit.console;

/**
 * What a caller of the console may do. Nothing is allowed unless {@link ConsoleAccess} grants it.
 */
public enum ConsolePermission {
  /** See the pages and the JSON API: counts, failures, events without their payloads. */
  VIEW,
  /** Replay and discard DEAD events (after a dry run). Implies nothing else: grant VIEW too. */
  OPERATE,
  /** See payloads on an event's page, size-capped and as text. */
  VIEW_PAYLOADS
}
