package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.OutboxConfigurationException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The JTA probe of work the application calls on its own thread. A JTA pool's refusal to commit
 * cannot be had without a transaction manager (samples-javaee runs Narayana for that); here a real
 * H2 connection stands in, whose commit answers as such a pool or a lost connection would.
 */
class TransactionsTest {
  private static final TimeBound BOUND = new TimeBound(Duration.ofSeconds(5), null);

  private static DataSource committingWith(SQLException failure) {
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (ds, dsMethod, dsArgs) -> {
              if (!dsMethod.getName().equals("getConnection")) {
                throw new UnsupportedOperationException(dsMethod.getName());
              }
              Connection real = DriverManager.getConnection("jdbc:h2:mem:transactions-test");
              return Proxy.newProxyInstance(
                  Connection.class.getClassLoader(),
                  new Class<?>[] {Connection.class},
                  (c, m, args) -> {
                    if (m.getName().equals("commit") && failure != null) {
                      throw failure;
                    }
                    return invoke(m, real, args);
                  });
            });
  }

  private static Object invoke(java.lang.reflect.Method m, Object target, Object[] args)
      throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Test
  void a_commit_refused_without_sql_state_is_a_jta_transaction_and_nothing_runs() {
    AtomicBoolean ran = new AtomicBoolean();
    DataSource enlisted =
        committingWith(new SQLException("Attempting to commit while taking part in a transaction"));

    assertThatThrownBy(
            () ->
                Transactions.inOwnTransaction(
                    enlisted, "OutboxAdmin (count events)", BOUND, c -> ran.getAndSet(true)))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageStartingWith("OutboxAdmin (count events) cannot commit")
        .hasMessageContaining("JTA")
        .hasMessageContaining("not JTA-managed");
    assertThat(ran).isFalse();
  }

  @Test
  void a_commit_failing_with_a_sql_state_is_the_databases_failure_not_jta() {
    AtomicBoolean ran = new AtomicBoolean();
    SQLException lost = new SQLException("Communications link failure", "08S01");

    assertThatThrownBy(
            () ->
                Transactions.inOwnTransaction(
                    committingWith(lost), "OutboxRelay.runOnce()", BOUND, c -> ran.getAndSet(true)))
        .isSameAs(lost);
    assertThat(ran).isFalse();
  }

  @Test
  void outside_jta_the_probe_is_invisible() throws SQLException {
    Transactions.Work<Boolean> valid = c -> c.isValid(1);
    boolean result = Transactions.inOwnTransaction(committingWith(null), "test", BOUND, valid);
    assertThat(result).isTrue();
    Transactions.refuseJtaTransaction(committingWith(null), "test", BOUND);
  }
}
