package dev.outboxkit.console;

import dev.outboxkit.jdbc.OutboxAdmin;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The operator console: the backlog, failures grouped by reason, one event or aggregate and why it
 * waits, and replay or discard by filter after a dry run, as HTML pages and a JSON API. It needs
 * only the database: mount it in the application with {@code OutboxConsoleServlet}, or run it
 * beside the application with {@code dev.outboxkit.console.standalone.StandaloneConsole}.
 *
 * <pre>{@code
 * OutboxConsole console = OutboxConsole.builder(dataSource)
 *     .access(ConsoleAccess.roles("outbox-viewer", "outbox-operator", null))
 *     .build();
 * }</pre>
 *
 * <p>Deny by default: there is no console without a {@link ConsoleAccess}, and a caller it grants
 * nothing gets 403. Every change is a POST carrying a CSRF token from the same origin; every page
 * is sent with a Content-Security-Policy that allows no script. Replays and discards are written to
 * the audit table ({@link ConsoleSchema}) before they change anything. Thread-safe.
 */
public final class OutboxConsole {
  private final ConsoleHandler handler;

  private OutboxConsole(Builder b) {
    OutboxAdmin admin =
        b.table == null
            ? OutboxAdmin.create(b.dataSource)
            : OutboxAdmin.builder(b.dataSource).table(b.table).build();
    byte[] secret = b.csrfSecret;
    if (secret == null) {
      secret = new byte[32];
      new SecureRandom().nextBytes(secret);
    }
    this.handler =
        new ConsoleHandler(
            admin, new AuditLog(b.dataSource), b.access, new Csrf(secret), b.payloadLimit);
  }

  /**
   * {@return a builder}
   *
   * @param dataSource where the outbox table and the audit table live
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(Objects.requireNonNull(dataSource, "dataSource"));
  }

  /**
   * Answers one request. Errors of the database are answered with 503 and a page saying what
   * failed; they are never thrown.
   *
   * @param exchange the request and where to answer it
   * @throws IOException if the response cannot be written
   */
  public void handle(ConsoleExchange exchange) throws IOException {
    handler.handle(exchange);
  }

  /** Configures a console; {@link #access} is required. */
  public static final class Builder {
    private final DataSource dataSource;
    private ConsoleAccess access;
    private String table;
    private byte[] csrfSecret;
    private int payloadLimit = 4096;

    private Builder(DataSource dataSource) {
      this.dataSource = dataSource;
    }

    /**
     * @param access who may look, operate and see payloads
     * @return this builder
     */
    public Builder access(ConsoleAccess access) {
      this.access = Objects.requireNonNull(access, "access");
      return this;
    }

    /**
     * @param table the outbox table, if not {@code outbox_event}
     * @return this builder
     */
    public Builder table(String table) {
      this.table = Objects.requireNonNull(table, "table");
      return this;
    }

    /**
     * {@return this builder}
     *
     * @param secret the key of the CSRF tokens, at least 16 bytes; give every node behind one load
     *     balancer the same. Random per console by default, so a token is valid only on the node
     *     that made it.
     */
    public Builder csrfSecret(byte[] secret) {
      if (secret == null || secret.length < 16) {
        throw new IllegalArgumentException("the CSRF secret must have at least 16 bytes");
      }
      this.csrfSecret = secret.clone();
      return this;
    }

    /**
     * {@return this builder}
     *
     * @param bytes the most bytes of a payload an event's page shows (to callers allowed to see
     *     payloads), 0 to 1,000,000; 4096 by default
     */
    public Builder payloadLimit(int bytes) {
      if (bytes < 0 || bytes > 1_000_000) {
        throw new IllegalArgumentException("payloadLimit must be 0 to 1,000,000, was " + bytes);
      }
      this.payloadLimit = bytes;
      return this;
    }

    /**
     * {@return the console}
     *
     * @throws IllegalStateException if no {@link #access} was given: the console serves nothing
     *     until access is configured
     */
    public OutboxConsole build() {
      if (access == null) {
        throw new IllegalStateException(
            "the console has no access configured: give OutboxConsole.Builder.access(...), for"
                + " example ConsoleAccess.roles(\"outbox-viewer\", \"outbox-operator\", null)");
      }
      return new OutboxConsole(this);
    }
  }
}
