package dev.outboxkit.console;

import java.io.IOException;
import java.util.Map;

/**
 * One HTTP request to the console and its response, as a server adapter hands it over: the Jakarta
 * and javax servlets and the standalone server implement it; an application mounting the console in
 * another server can too. Parameters are the query string's and, for a form POST, the body's.
 */
public interface ConsoleExchange extends ConsoleCaller {
  /** {@return the HTTP method, upper case} */
  String method();

  /** {@return the path below where the console is mounted, starting with {@code /}} */
  String path();

  /**
   * {@return the first value of a parameter, or null}
   *
   * @param name the parameter's name
   */
  String parameter(String name);

  /**
   * {@return the first value of a request header, or null}
   *
   * @param name the header's name
   */
  String header(String name);

  /**
   * {@return the origin the request was addressed to ({@code https://shop.example:8443}), as the
   * server sees it} Compared with the browser's {@code Origin} header on every change.
   */
  String origin();

  /**
   * {@return the URL path where the console is mounted, without a trailing slash ({@code
   * /ops/outbox})}
   */
  String mountPath();

  /**
   * Sends the response; called once.
   *
   * @param status the HTTP status
   * @param headers the response headers
   * @param body the body, sent as is
   * @throws IOException if it cannot be sent
   */
  void respond(int status, Map<String, String> headers, byte[] body) throws IOException;
}
