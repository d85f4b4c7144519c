package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.DatabaseTest;
import dev.outboxkit.testkit.Flavor;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The relay's transactions run at READ COMMITTED on InnoDB whatever the pool's level (MariaDB's
 * default is REPEATABLE READ), and leave the pooled connection's level as it was.
 */
class MariaDbIsolationTest extends DatabaseTest {

  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }

  private static String level(Connection c, String query) throws Exception {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      rs.next();
      return rs.getString(1);
    }
  }

  @Test
  void relay_transactions_run_at_read_committed_and_leave_the_session_level_alone()
      throws Exception {
    String inside =
        Transactions.inTransaction(
            ds,
            new TimeBound(Duration.ofSeconds(5), null),
            c -> {
              try (Statement s = c.createStatement()) {
                s.executeQuery("SELECT COUNT(*) FROM outbox_event FOR UPDATE").close();
              }
              try {
                return level(
                    c,
                    "SELECT trx_isolation_level FROM information_schema.innodb_trx"
                        + " WHERE trx_mysql_thread_id = CONNECTION_ID()");
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            OutboxSql.of(dialect.preset(), TableName.of("outbox_event"))
                .text(Statements.BEFORE_RELAY_TRANSACTION));
    assertThat(inside).isEqualTo("READ COMMITTED");

    try (Connection c = ds.getConnection()) {
      assertThat(c.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_REPEATABLE_READ);
      assertThat(c.getAutoCommit()).isTrue();
    }
  }
}
