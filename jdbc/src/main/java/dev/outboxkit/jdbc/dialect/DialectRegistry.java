package dev.outboxkit.jdbc.dialect;

import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.internal.Presets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Finds a connection's dialect: first the providers registered here, in order; then those listed
 * for {@link ServiceLoader} (found once, with this class's class loader); then the shipped presets
 * ({@link Dialect}). A component not told its dialect asks here.
 */
@Beta
public final class DialectRegistry {
  private static final List<DialectProvider> REGISTERED = new CopyOnWriteArrayList<>();

  private DialectRegistry() {}

  /**
   * Registers a provider, asked after those registered before it and before the {@link
   * ServiceLoader} ones and the presets; for the life of the class loader.
   *
   * @param provider recognises a database and gives its dialect
   */
  public static void register(DialectProvider provider) {
    if (provider == null) {
      throw new IllegalArgumentException("provider is null");
    }
    REGISTERED.add(provider);
  }

  /**
   * {@return the dialect of the database behind a connection, running no statement}
   *
   * @param connection an open connection; left untouched
   * @throws dev.outboxkit.OutboxConfigurationException if no provider or preset knows the database,
   *     naming the presets and how to add a dialect
   * @throws SQLException if the metadata cannot be read
   */
  public static SqlDialect detect(Connection connection) throws SQLException {
    DatabaseMetaData md = connection.getMetaData();
    for (DialectProvider p : providers()) {
      SqlDialect d = p.dialectFor(md);
      if (d != null) {
        return d;
      }
    }
    Dialect preset = Dialect.detect(md);
    if (preset == null) {
      throw new dev.outboxkit.OutboxConfigurationException(unknown(md));
    }
    return preset.preset();
  }

  /**
   * {@return the message for a database no dialect knows}
   *
   * @param md its metadata
   * @throws SQLException if the metadata cannot be read
   */
  public static String unknown(DatabaseMetaData md) throws SQLException {
    return Presets.unknownDatabase(md);
  }

  private static List<DialectProvider> providers() {
    List<DialectProvider> all = new ArrayList<>(REGISTERED);
    all.addAll(Loaded.PROVIDERS);
    return all;
  }

  /** The {@link ServiceLoader} providers, looked up once, on first use. */
  private static final class Loaded {
    static final List<DialectProvider> PROVIDERS = load();

    private static List<DialectProvider> load() {
      List<DialectProvider> found = new ArrayList<>();
      ServiceLoader.load(DialectProvider.class, DialectRegistry.class.getClassLoader())
          .forEach(found::add);
      return found;
    }
  }
}
