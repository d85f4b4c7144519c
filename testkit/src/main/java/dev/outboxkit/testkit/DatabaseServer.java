package dev.outboxkit.testkit;

/**
 * A running database server (or H2 engine) that can hand out fresh, empty databases. One per
 * flavour per JVM, shared by all test classes; see {@link TestDatabases}.
 */
public interface DatabaseServer {

  /** Which product this is. */
  Flavor flavor();

  /**
   * Where it came from, for logs: {@code "env OUTBOXKIT_TEST_POSTGRES_URL"}, {@code "embedded"}.
   */
  String origin();

  /**
   * Creates a new empty database (a schema on PostgreSQL, a database on MySQL-family servers) named
   * from the prefix plus a random suffix.
   */
  TestDatabase createDatabase(String prefix);
}
