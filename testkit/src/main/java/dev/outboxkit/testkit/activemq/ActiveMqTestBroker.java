package dev.outboxkit.testkit.activemq;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.activemq.broker.BrokerPlugin;
import org.apache.activemq.broker.BrokerService;
import org.apache.activemq.broker.TransportConnection;
import org.apache.activemq.broker.TransportConnector;
import org.apache.activemq.command.ActiveMQQueue;

/**
 * A real ActiveMQ Classic broker in this JVM, on a loopback port chosen at the first start. It can
 * be stopped and started again on the same port and data directory, which is how tests make a
 * broker outage. Persistent brokers keep their KahaDB store under {@code target/activemq/}.
 *
 * <p>One class for both lines of ActiveMQ Classic: 6.x (Jakarta Messaging) and 5.18 (javax.jms). It
 * is compiled against the broker's own API only ({@code BrokerService}, its connectors and
 * plugins), whose classes keep their names and signatures across the two lines, and names no type
 * of either JMS API; clients connect to {@link #url()} with the {@code ActiveMQConnectionFactory}
 * of the line on their class path. The broker artifacts are optional dependencies of the test kit:
 * a module that uses this class declares {@code activemq-broker} (and {@code activemq-kahadb-store}
 * for a persistent broker) of its own line.
 */
public final class ActiveMqTestBroker implements AutoCloseable {
  private final String name;
  private final boolean persistent;
  private final File dataDir;
  private final BrokerPlugin[] plugins;
  private int port;
  private BrokerService broker;

  private ActiveMqTestBroker(String name, boolean persistent, BrokerPlugin... plugins) {
    this.name = name;
    this.persistent = persistent;
    this.plugins = plugins;
    this.dataDir =
        Path.of("target", "activemq", name + "-" + UUID.randomUUID().toString().substring(0, 8))
            .toAbsolutePath()
            .toFile();
  }

  /**
   * Starts a broker that keeps messages in memory only.
   *
   * @param plugins broker plugins, e.g. to inject faults into sends
   */
  public static ActiveMqTestBroker startInMemory(String name, BrokerPlugin... plugins) {
    ActiveMqTestBroker b = new ActiveMqTestBroker(name, false, plugins);
    b.start();
    return b;
  }

  /**
   * Starts a broker with a KahaDB store under {@code target/}, so messages survive a restart.
   *
   * @param plugins broker plugins, e.g. to inject faults into sends
   */
  public static ActiveMqTestBroker startPersistent(String name, BrokerPlugin... plugins) {
    ActiveMqTestBroker b = new ActiveMqTestBroker(name, true, plugins);
    b.start();
    return b;
  }

  /** Starts the broker (again), on the port of the first start. Does nothing if running. */
  public synchronized void start() {
    if (broker != null) {
      return;
    }
    try {
      BrokerService b = new BrokerService();
      b.setBrokerName(name);
      b.setPersistent(persistent);
      b.setDataDirectoryFile(dataDir);
      b.setUseJmx(false);
      b.setAdvisorySupport(false);
      b.setUseShutdownHook(false);
      b.setSchedulerSupport(false);
      // Modest limits: the defaults (100 GB of store) exceed many disks and make the broker warn.
      b.getSystemUsage().getStoreUsage().setLimit(1L << 30);
      b.getSystemUsage().getTempUsage().setLimit(1L << 30);
      if (plugins.length > 0) {
        b.setPlugins(plugins);
      }
      TransportConnector connector = b.addConnector("tcp://127.0.0.1:" + port);
      b.start();
      b.waitUntilStarted();
      port = connector.getConnectUri().getPort();
      broker = b;
    } catch (Exception e) {
      throw new IllegalStateException("broker " + name + " did not start", e);
    }
  }

  /** Stops the broker; clients lose their connections. Does nothing if stopped. */
  public synchronized void stop() {
    if (broker == null) {
      return;
    }
    try {
      broker.stop();
      broker.waitUntilStopped();
    } catch (Exception e) {
      throw new IllegalStateException("broker " + name + " did not stop", e);
    } finally {
      broker = null;
    }
  }

  /** Drops every client connection from the broker side, as a network cut would. */
  public synchronized void dropClientConnections() {
    List<TransportConnection> connections = new ArrayList<>();
    for (TransportConnector c : broker.getTransportConnectors()) {
      connections.addAll(c.getConnections());
    }
    for (TransportConnection c : connections) {
      c.serviceException(new java.io.IOException("connection cut by the test"));
    }
  }

  /** A plain {@code tcp://} URL (no failover: the transport reconnects by itself). */
  public String url() {
    return "tcp://127.0.0.1:" + port;
  }

  /**
   * Messages the queue holds now: sent and committed, not yet consumed.
   *
   * @throws IllegalStateException if the broker is stopped or cannot say
   */
  public synchronized long queueDepth(String queue) {
    if (broker == null) {
      throw new IllegalStateException("broker " + name + " is stopped");
    }
    try {
      return broker
          .getDestination(new ActiveMQQueue(queue))
          .getDestinationStatistics()
          .getMessages()
          .getCount();
    } catch (Exception e) {
      throw new IllegalStateException("broker " + name + " cannot count queue " + queue, e);
    }
  }

  /** Stops the broker and deletes its store (KahaDB preallocates 32 MB journal files). */
  @Override
  public void close() {
    stop();
    if (dataDir.exists()) {
      try (Stream<Path> files = Files.walk(dataDir.toPath())) {
        files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
      } catch (IOException e) {
        // leftovers under target/ are harmless; mvn clean removes them
      }
    }
  }
}
