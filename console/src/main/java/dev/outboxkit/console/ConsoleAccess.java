package dev.outboxkit.console;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Who may do what in the console. The console has no default: {@link OutboxConsole.Builder#build}
 * refuses to build without one, and a caller granted nothing gets 403 on every page.
 *
 * <pre>{@code
 * ConsoleAccess access = ConsoleAccess.roles("outbox-viewer", "outbox-operator", "outbox-payloads");
 * }</pre>
 */
@FunctionalInterface
public interface ConsoleAccess {
  /**
   * {@return what this caller may do; empty for nothing} Called once per request.
   *
   * @param caller the request's authenticated caller; an unauthenticated one has no name
   */
  Set<ConsolePermission> permissions(ConsoleCaller caller);

  /**
   * {@return access by the server's roles: an authenticated caller in {@code viewRole} may look,
   * one in {@code operateRole} may also replay and discard, one in {@code payloadRole} may also see
   * payloads}
   *
   * @param viewRole the role that may look (an operator needs it too, or is given it here)
   * @param operateRole the role that may replay and discard
   * @param payloadRole the role that may see payloads, or null for nobody
   */
  static ConsoleAccess roles(String viewRole, String operateRole, String payloadRole) {
    Objects.requireNonNull(viewRole, "viewRole");
    Objects.requireNonNull(operateRole, "operateRole");
    return caller -> {
      Set<ConsolePermission> granted = EnumSet.noneOf(ConsolePermission.class);
      if (caller.name().isEmpty()) {
        return granted;
      }
      if (caller.isInRole(operateRole)) {
        granted.add(ConsolePermission.VIEW);
        granted.add(ConsolePermission.OPERATE);
      }
      if (caller.isInRole(viewRole)) {
        granted.add(ConsolePermission.VIEW);
      }
      if (payloadRole != null && caller.isInRole(payloadRole) && !granted.isEmpty()) {
        granted.add(ConsolePermission.VIEW_PAYLOADS);
      }
      return granted;
    };
  }
}
