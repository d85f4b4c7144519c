package dev.outboxkit.jdbc.dialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.jdbc.OutboxStorageException;
import dev.outboxkit.testing.RecordingTransport;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** How a database finds its dialect, and what a wrong or missing one says. */
class DialectRegistryTest {

  private static HikariDataSource h2(String name) {
    HikariDataSource ds = new HikariDataSource();
    ds.setJdbcUrl("jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    ds.setMaximumPoolSize(4);
    return ds;
  }

  @Test
  void registered_providers_come_first_then_service_loaded_ones_then_the_presets()
      throws SQLException {
    String mark = "registered-" + UUID.randomUUID();
    SqlDialect mine = Dialect.H2.preset().toBuilder("H2, registered").build();
    DialectRegistry.register(md -> md.getURL().contains(mark) ? mine : null);

    try (Connection c = h2(mark).getConnection()) {
      assertThat(DialectRegistry.detect(c)).isSameAs(mine);
    }
    try (Connection c = h2(MarkedDatabaseProvider.MARK).getConnection()) {
      assertThat(DialectRegistry.detect(c)).isSameAs(MarkedDatabaseProvider.DIALECT);
    }
    try (Connection c = h2("plain").getConnection()) {
      assertThat(DialectRegistry.detect(c)).isSameAs(Dialect.H2.preset());
    }
  }

  @Test
  void a_detected_dialect_of_your_own_serves_every_component() throws Exception {
    HikariDataSource ds = h2(MarkedDatabaseProvider.MARK);
    try (Connection c = ds.getConnection()) {
      OutboxSchema.create(c);
      c.setAutoCommit(false);
      Outbox.append(c, OutboxEvent.builder("Order", "1", "Placed").payload("{}").build());
      c.commit();
    }
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay = OutboxRelay.builder(ds, transport).build()) {
      assertThat(relay.runOnce()).isEqualTo(1);
    }
    assertThat(transport.deliveredEvents()).hasSize(1);
  }

  @Test
  void an_unknown_database_is_told_the_presets_and_how_to_add_a_dialect() {
    DatabaseMetaData acme =
        fake(
            DatabaseMetaData.class,
            (proxy, method, args) -> {
              switch (method.getName()) {
                case "getDatabaseProductName":
                  return "Acme DB";
                case "getDatabaseProductVersion":
                  return "7.1";
                case "getURL":
                  return "jdbc:acme://localhost/x";
                default:
                  throw new UnsupportedOperationException(method.getName());
              }
            });
    Connection connection =
        fake(
            Connection.class,
            (proxy, method, args) -> {
              if (method.getName().equals("getMetaData")) {
                return acme;
              }
              throw new UnsupportedOperationException(method.getName());
            });

    assertThatThrownBy(() -> DialectRegistry.detect(connection))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageStartingWith("no dialect for database 'Acme DB 7.1': the presets are")
        .hasMessageContaining("build a SqlDialect (SqlDialect.builder or a preset's toBuilder)")
        .hasMessageContaining("DialectRegistry.register")
        .hasMessageContaining("META-INF/services/dev.outboxkit.jdbc.dialect.DialectProvider");
  }

  @Test
  void a_claim_capability_the_database_lacks_fails_naming_the_statement_and_what_to_do()
      throws Exception {
    HikariDataSource ds = h2("returning-on-h2");
    try (Connection c = ds.getConnection()) {
      OutboxSchema.create(c, "outbox_event", Dialect.H2);
      c.setAutoCommit(false);
      Outbox.append(c, OutboxEvent.builder("Order", "1", "Placed").payload("{}").build());
      c.commit();
    }
    // H2 has no UPDATE ... RETURNING: PostgreSQL's claim, told it is H2's.
    SqlDialect returningOnH2 =
        Dialect.H2.preset().toBuilder("H2, claiming like PostgreSQL")
            .claim(ClaimCapability.RETURNING)
            .statement(
                "claimUnordered",
                Dialect.POSTGRESQL.preset().statement("claimUnordered").orElseThrow())
            .statement(
                "claimOrdered", Dialect.POSTGRESQL.preset().statement("claimOrdered").orElseThrow())
            .build();

    try (OutboxRelay relay =
        OutboxRelay.builder(ds, new RecordingTransport()).dialect(returningOnH2).build()) {
      assertThatThrownBy(relay::runOnce)
          .isInstanceOf(OutboxStorageException.class)
          .hasStackTraceContaining(
              "dialect H2, claiming like PostgreSQL: the database refused statement"
                  + " claimOrdered of claim capability RETURNING (")
          .hasStackTraceContaining(
              "If the database lacks what that capability needs (UPDATE ... RETURNING over"
                  + " SELECT ... FOR UPDATE SKIP LOCKED), build the dialect with"
                  + " claim(ClaimCapability.CONDITIONAL_UPDATE)");
    }
    try (Connection c = ds.getConnection()) {
      assertThat(c.isValid(1)).isTrue(); // nothing was lost: the row is still there, PENDING
    }
  }

  /** An implementation of {@code type} whose every method {@code answers}. */
  private static <T> T fake(Class<T> type, InvocationHandler answers) {
    return type.cast(
        Proxy.newProxyInstance(
            DialectRegistryTest.class.getClassLoader(), new Class<?>[] {type}, answers));
  }
}
