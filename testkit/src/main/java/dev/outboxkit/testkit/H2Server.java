package dev.outboxkit.testkit;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/** H2 in memory: every test database is a separate named in-memory database. */
final class H2Server implements DatabaseServer {
  private static final AtomicInteger COUNTER = new AtomicInteger();

  @Override
  public Flavor flavor() {
    return Flavor.H2;
  }

  @Override
  public String origin() {
    return "in-memory H2";
  }

  @Override
  public TestDatabase createDatabase(String prefix) {
    String name =
        "okt_"
            + prefix.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_")
            + "_"
            + COUNTER.incrementAndGet();
    String url = "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1";
    // SHUTDOWN frees the in-memory database once the test class is done with it.
    return new TestDatabase(
        Flavor.H2, name, url, "sa", "", "SHUTDOWN", ConnectionFactory.of(url, "sa", ""));
  }
}
