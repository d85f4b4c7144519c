package dev.outboxkit.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Ports on 127.0.0.1 for servers a test starts and for connections a test wants refused. */
public final class Ports {
  private Ports() {}

  /**
   * A port on 127.0.0.1 that nothing listened on a moment ago: free to bind (barring a race with
   * another process), and a connection to it is refused until something does.
   *
   * @return the port number
   * @throws UncheckedIOException if no port could be bound
   */
  public static int unused() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
