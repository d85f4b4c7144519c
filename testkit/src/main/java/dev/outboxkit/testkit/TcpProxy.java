package dev.outboxkit.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP proxy to put between a database client (a JDBC driver) and a real server, so that
 * fault-injection tests can break the network path on demand without touching the server: {@link
 * #blackHole()} makes the path go silent (a partition, a dead route, a frozen host: nothing is
 * closed, so only timeouts can notice), {@link #cutAll()} resets every connection (a server crash
 * or restart, a failover, a firewall dropping its state), and {@link #resume()} heals a silent
 * path. Point the client at {@link #host()} and {@link #port()} instead of the server.
 *
 * <p>Blocking sockets and two daemon threads per connection (named {@code tcp-proxy-...}): the
 * proxy serves a handful of test connections, and plain threads make a hung pump easy to read in a
 * thread dump.
 */
public final class TcpProxy implements AutoCloseable {
  private static final String LOOPBACK = "127.0.0.1";
  private static final int BUFFER_SIZE = 16 * 1024;
  // A loopback server either answers at once or refuses; anything slower is a broken test setup.
  private static final int CONNECT_TIMEOUT_MILLIS = 5_000;
  private static final long CLOSE_JOIN_MILLIS = 2_000;

  private final String targetHost;
  private final int targetPort;
  private final ServerSocket listener;
  private final AtomicLong forwardedBytes = new AtomicLong();

  // Guards everything below; pumps also wait on it while the path is black-holed.
  private final Object lock = new Object();
  private final Set<Link> links = new HashSet<>();
  private final List<Thread> threads = new ArrayList<>();
  private boolean blackHoled;
  private boolean closed;
  private int nextLinkId;

  private TcpProxy(String targetHost, int targetPort, ServerSocket listener) {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.listener = listener;
  }

  /**
   * Starts a proxy listening on an ephemeral port of {@code 127.0.0.1} that forwards every
   * connection it accepts to the target.
   *
   * @param targetHost host of the real server
   * @param targetPort port of the real server
   * @return the running proxy; close it to stop it
   * @throws IOException if the proxy cannot listen
   */
  public static TcpProxy start(String targetHost, int targetPort) throws IOException {
    ServerSocket listener = new ServerSocket();
    try {
      listener.bind(new InetSocketAddress(InetAddress.getByName(LOOPBACK), 0));
    } catch (IOException e) {
      listener.close();
      throw e;
    }
    TcpProxy proxy = new TcpProxy(targetHost, targetPort, listener);
    proxy.startThread("accept", proxy::acceptLoop);
    return proxy;
  }

  /** The address clients connect to instead of the server's: always {@code 127.0.0.1}. */
  public String host() {
    return LOOPBACK;
  }

  /** The port clients connect to instead of the server's. */
  public int port() {
    return listener.getLocalPort();
  }

  /**
   * Makes the network path go silent in both directions, for existing and new connections alike,
   * like a partition or a host that froze: nothing is closed and no FIN or RST is sent, so the
   * client learns of it only through its own timeouts (socket timeout, query timeout, keepalive).
   * The proxy stops reading, so the peers' TCP windows fill as they would on a dead path. New
   * connections are still accepted (the client's connect succeeds) but their handshake hangs. Bytes
   * the proxy had already read when this is called may still be delivered.
   */
  public void blackHole() {
    synchronized (lock) {
      blackHoled = true;
    }
  }

  /**
   * Heals a {@linkplain #blackHole() black-holed} path, like a partition ending: every connection
   * that survived it carries on, and the bytes held back flow on intact and in order.
   */
  public void resume() {
    synchronized (lock) {
      blackHoled = false;
      lock.notifyAll();
    }
  }

  /**
   * Resets every current connection on both sides at once, as a server crash or restart, a failover
   * or a firewall losing its connection table does: the client sees "connection reset" (an RST, not
   * an orderly close) on its next read or write. Connections made afterwards are forwarded again
   * (unless the path is black-holed), as after a server restart.
   */
  public void cutAll() {
    List<Link> cut;
    synchronized (lock) {
      cut = new ArrayList<>(links);
      links.clear();
      for (Link link : cut) {
        link.ended = true;
      }
      lock.notifyAll();
    }
    for (Link link : cut) {
      link.reset();
    }
  }

  /** How many proxied connections are open now, so a test can tell a pool's reconnects apart. */
  public int connections() {
    synchronized (lock) {
      return links.size();
    }
  }

  /**
   * How many bytes the proxy has forwarded so far, in both directions together, so a test can see
   * that traffic went through the proxy at all.
   */
  public long forwardedBytes() {
    return forwardedBytes.get();
  }

  /**
   * Stops listening, resets every connection and waits (at most two seconds) for the proxy's
   * threads to end, so that a test's thread census does not count them.
   */
  @Override
  public void close() {
    List<Thread> started;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      started = new ArrayList<>(threads);
    }
    closeQuietly(listener);
    cutAll();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_JOIN_MILLIS);
    for (Thread t : started) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (left <= 0) {
        break;
      }
      try {
        t.join(left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void acceptLoop() {
    while (true) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        // The listener is closed only by close().
        return;
      }
      Socket server = new Socket();
      try {
        // Small database messages must not wait for Nagle: the proxy would add latency of its own.
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
        server.connect(new InetSocketAddress(targetHost, targetPort), CONNECT_TIMEOUT_MILLIS);
      } catch (IOException e) {
        // The server is down: the client sees its connection reset, as it would a refusal.
        abort(client);
        abort(server);
        continue;
      }
      open(client, server);
    }
  }

  private void open(Socket client, Socket server) {
    Link link;
    synchronized (lock) {
      if (closed) {
        link = null;
      } else {
        link = new Link(client, server);
        links.add(link);
        // Forget ended connections' threads, so a long test with many reconnects stays small.
        threads.removeIf(t -> !t.isAlive());
        int id = ++nextLinkId;
        startThread(id + "-up", () -> link.pump(client, server));
        startThread(id + "-down", () -> link.pump(server, client));
      }
    }
    if (link == null) {
      abort(client);
      abort(server);
    }
  }

  private void startThread(String suffix, Runnable body) {
    Thread t = new Thread(body, "tcp-proxy-" + port() + "-" + suffix);
    t.setDaemon(true);
    synchronized (lock) {
      threads.add(t);
    }
    t.start();
  }

  /**
   * Waits while the path is black-holed.
   *
   * @return false when the connection ended meanwhile (cut or closed) or the pump was interrupted,
   *     so the pump must stop
   */
  private boolean awaitFlowing(Link link) {
    synchronized (lock) {
      while (blackHoled && !link.ended) {
        try {
          lock.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      return !link.ended;
    }
  }

  /** One proxied connection: the client's socket, the server's, and a pump for each direction. */
  private final class Link {
    private final Socket client;
    private final Socket server;
    // Guarded by lock.
    private boolean ended;
    private int pumpsDone;

    Link(Socket client, Socket server) {
      this.client = client;
      this.server = server;
    }

    void pump(Socket from, Socket to) {
      byte[] buffer = new byte[BUFFER_SIZE];
      try {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        while (true) {
          // Checked before reading, so a black-holed path stops reading and the sender's window
          // fills; checked again after reading, so bytes caught by a read in progress are held.
          if (!awaitFlowing(this)) {
            fail();
            return;
          }
          int n = in.read(buffer);
          if (!awaitFlowing(this)) {
            fail();
            return;
          }
          if (n < 0) {
            // Pass the orderly close (FIN) on: the other direction may still carry a reply.
            to.shutdownOutput();
            finishDirection();
            return;
          }
          out.write(buffer, 0, n);
          forwardedBytes.addAndGet(n);
        }
      } catch (IOException e) {
        // A reset or failure on either side reaches the other as a reset, as a crash would.
        fail();
      }
    }

    private void finishDirection() {
      boolean both;
      synchronized (lock) {
        both = ++pumpsDone == 2 && !ended;
        if (both) {
          ended = true;
          links.remove(this);
          lock.notifyAll();
        }
      }
      if (both) {
        closeQuietly(client);
        closeQuietly(server);
      }
    }

    private void fail() {
      synchronized (lock) {
        ended = true;
        links.remove(this);
        lock.notifyAll();
      }
      reset();
    }

    void reset() {
      abort(client);
      abort(server);
    }
  }

  private static void abort(Socket socket) {
    try {
      // Linger zero makes close() send an RST instead of a FIN.
      socket.setSoLinger(true, 0);
    } catch (IOException e) {
      // Already closed: nothing left to reset.
    }
    closeQuietly(socket);
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // Closing is best effort: the socket is unusable either way.
    }
  }
}
