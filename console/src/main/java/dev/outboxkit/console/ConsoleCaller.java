package dev.outboxkit.console;

import java.util.Optional;

/** The authenticated caller of one request, as the server hosting the console knows it. */
public interface ConsoleCaller {
  /** {@return the caller's name, empty if the request is not authenticated} */
  Optional<String> name();

  /**
   * {@return whether the server puts the caller in this role} In a servlet container, {@code
   * HttpServletRequest.isUserInRole}; standalone, the roles of the users file.
   *
   * @param role the role's name
   */
  boolean isInRole(String role);
}
