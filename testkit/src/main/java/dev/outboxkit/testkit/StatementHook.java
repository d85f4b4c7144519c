package dev.outboxkit.testkit;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * A data source whose connections run a hook right after a statement containing a marker executed,
 * before the transaction goes on: the way a test makes a fault (a close, a network black hole)
 * strike at one exact moment of the relay protocol, e.g. while a claim's transaction is open. The
 * statements themselves run on the real driver against the real server.
 */
public final class StatementHook {
  private StatementHook() {}

  /**
   * Wraps a data source.
   *
   * @param real where connections come from
   * @param marker text of the statements to hook, e.g. {@code "SKIP LOCKED"} for a claim
   * @param hook runs on the relay's thread after each such statement executed
   * @return the wrapping data source
   */
  public static DataSource after(DataSource real, String marker, Runnable hook) {
    return hooked(real, marker, hook::run);
  }

  /**
   * Wraps a data source so that a statement containing a marker fails after it executed, whenever
   * {@code failNow} says so: the way a test makes the database fail one chosen claim or
   * acknowledgement (the statement ran, its transaction is then rolled back by its caller).
   *
   * @param real where connections come from
   * @param marker text of the statements that may fail
   * @param failNow asked after each such statement executed; true throws an {@link SQLException}
   *     with SQL state {@code 08006} (connection failure)
   * @return the wrapping data source
   */
  public static DataSource failing(DataSource real, String marker, BooleanSupplier failNow) {
    return hooked(
        real,
        marker,
        () -> {
          if (failNow.getAsBoolean()) {
            throw new SQLException("injected failure after the statement ran", "08006");
          }
        });
  }

  @FunctionalInterface
  private interface Hook {
    void run() throws SQLException;
  }

  private static DataSource hooked(DataSource real, String marker, Hook hook) {
    return proxy(
        DataSource.class,
        (p, m, args) -> {
          Object result = invoke(m, real, args);
          if (!m.getName().equals("getConnection")) {
            return result;
          }
          Connection c = (Connection) result;
          return proxy(
              Connection.class,
              (pc, cm, cargs) -> {
                Object r = invoke(cm, c, cargs);
                if (cm.getName().equals("prepareStatement")
                    && cargs != null
                    && ((String) cargs[0]).contains(marker)) {
                  PreparedStatement ps = (PreparedStatement) r;
                  return proxy(
                      PreparedStatement.class,
                      (pp, pm, pargs) -> {
                        Object out = invoke(pm, ps, pargs);
                        if (pm.getName().startsWith("execute")) {
                          hook.run();
                        }
                        return out;
                      });
                }
                return r;
              });
        });
  }

  /**
   * A data source lending one connection again and again, which its users' {@code close()} leaves
   * open: to see what a library's transactions leave behind on a pooled connection.
   */
  public static DataSource singleConnection(Connection connection) {
    Connection unclosable =
        proxy(
            Connection.class,
            (p, m, args) -> m.getName().equals("close") ? null : invoke(m, connection, args));
    return proxy(
        DataSource.class,
        (p, m, args) -> {
          if (m.getName().equals("getConnection")) {
            return unclosable;
          }
          throw new UnsupportedOperationException(m.getName());
        });
  }

  @FunctionalInterface
  private interface Handler {
    Object handle(Object proxy, Method method, Object[] args) throws Throwable;
  }

  private static <T> T proxy(Class<T> type, Handler handler) {
    return type.cast(
        Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler::handle));
  }

  private static Object invoke(Method m, Object target, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
