package dev.outboxkit.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Holds a stopped broker's port and counts the clients that try to connect to it, resetting each
 * connection at once (as a host whose broker process is going down, or a load balancer without a
 * backend, does). It is how a test counts a client's connection attempts against a dead broker:
 * refused connections leave no trace anywhere a test can read.
 */
final class ConnectionCounter implements AutoCloseable {
  private final ServerSocket server;
  private final Thread acceptor;
  private final AtomicInteger accepted = new AtomicInteger();

  private ConnectionCounter(ServerSocket server) {
    this.server = server;
    this.acceptor = new Thread(this::acceptAll, "connection-counter-" + server.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** Binds 127.0.0.1:{@code port}, retrying briefly while the broker lets go of it. */
  static ConnectionCounter bind(int port) {
    IOException last = null;
    for (int i = 0; i < 100; i++) {
      ServerSocket s = null;
      try {
        s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress("127.0.0.1", port), 128);
        return new ConnectionCounter(s);
      } catch (IOException e) {
        last = e;
        closeQuietly(s);
        FaultTest.sleep(100);
      }
    }
    throw new UncheckedIOException("cannot bind port " + port, last);
  }

  /** Connections accepted (and reset) so far. */
  int accepted() {
    return accepted.get();
  }

  private void acceptAll() {
    while (!server.isClosed()) {
      try (Socket s = server.accept()) {
        accepted.incrementAndGet();
        s.setSoLinger(true, 0); // RST: leaves no TIME_WAIT behind on the broker's port
      } catch (IOException e) {
        // closed, or the client gave up first
      }
    }
  }

  @Override
  public void close() {
    closeQuietly(server);
    try {
      acceptor.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(ServerSocket s) {
    if (s != null) {
      try {
        s.close();
      } catch (IOException e) {
        // nothing to do
      }
    }
  }
}
