package dev.outboxkit.testkit;

/** The database products OutboxKit is tested on. */
public enum Flavor {
  POSTGRES,
  MYSQL,
  MARIADB,
  H2
}
