package dev.outboxkit.console.servlet;

import dev.outboxkit.console.ConsoleAccess;
import dev.outboxkit.console.ConsoleExchange;
import dev.outboxkit.console.OutboxConsole;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;
import java.util.Optional;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;

/**
 * The console as a servlet. Map it to a path of its own with a trailing {@code /*}, behind the
 * container's authentication:
 *
 * <pre>{@code
 * <servlet>
 *   <servlet-name>outbox-console</servlet-name>
 *   <servlet-class>dev.outboxkit.console.servlet.OutboxConsoleServlet</servlet-class>
 *   <init-param><param-name>dataSource</param-name><param-value>java:comp/env/jdbc/orders</param-value></init-param>
 *   <init-param><param-name>viewRole</param-name><param-value>outbox-viewer</param-value></init-param>
 *   <init-param><param-name>operateRole</param-name><param-value>outbox-operator</param-value></init-param>
 * </servlet>
 * <servlet-mapping><servlet-name>outbox-console</servlet-name><url-pattern>/outbox/*</url-pattern></servlet-mapping>
 * }</pre>
 *
 * <p>Init parameters: {@code dataSource} (a JNDI name, required), {@code viewRole} and {@code
 * operateRole} (container roles, both required: without them every request gets 403), {@code
 * payloadRole} (optional), {@code table} (if not {@code outbox_event}). Or construct it with an
 * {@link OutboxConsole} and register it from a {@code ServletContextListener}.
 */
public class OutboxConsoleServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  private transient OutboxConsole console;

  /** For {@code web.xml}: configured by init parameters. */
  public OutboxConsoleServlet() {}

  /**
   * For registration in code: {@code context.addServlet("outbox-console", new ...(console))}.
   *
   * @param console the console to serve
   */
  public OutboxConsoleServlet(OutboxConsole console) {
    this.console = console;
  }

  @Override
  public void init(ServletConfig config) throws ServletException {
    super.init(config);
    if (console != null) {
      return;
    }
    String viewRole = config.getInitParameter("viewRole");
    String operateRole = config.getInitParameter("operateRole");
    if (viewRole == null || operateRole == null) {
      log(
          "OutboxKit console: init-params viewRole and operateRole are not both set; every"
              + " request is refused until they are");
      return;
    }
    String name = config.getInitParameter("dataSource");
    if (name == null) {
      throw new ServletException(
          "OutboxKit console: init-param dataSource (a JNDI name such as"
              + " java:comp/env/jdbc/orders) is required");
    }
    DataSource ds;
    try {
      ds = (DataSource) new InitialContext().lookup(name);
    } catch (NamingException | ClassCastException e) {
      throw new ServletException("OutboxKit console: no DataSource at JNDI name " + name, e);
    }
    OutboxConsole.Builder b =
        OutboxConsole.builder(ds)
            .access(
                ConsoleAccess.roles(viewRole, operateRole, config.getInitParameter("payloadRole")));
    String table = config.getInitParameter("table");
    if (table != null) {
      b.table(table);
    }
    console = b.build();
  }

  @Override
  protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    if (console == null) {
      resp.sendError(403, "the OutboxKit console has no access configured");
      return;
    }
    console.handle(new Exchange(req, resp));
  }

  /** A servlet request and response as the console sees them. */
  private static final class Exchange implements ConsoleExchange {
    private final HttpServletRequest req;
    private final HttpServletResponse resp;

    Exchange(HttpServletRequest req, HttpServletResponse resp) {
      this.req = req;
      this.resp = resp;
    }

    @Override
    public Optional<String> name() {
      return Optional.ofNullable(req.getUserPrincipal()).map(p -> p.getName());
    }

    @Override
    public boolean isInRole(String role) {
      return req.isUserInRole(role);
    }

    @Override
    public String method() {
      return req.getMethod();
    }

    @Override
    public String path() {
      String p = req.getPathInfo();
      return p == null ? "/" : p;
    }

    @Override
    public String parameter(String name) {
      return req.getParameter(name);
    }

    @Override
    public String header(String name) {
      return req.getHeader(name);
    }

    @Override
    public String origin() {
      int port = req.getServerPort();
      boolean standard =
          ("http".equals(req.getScheme()) && port == 80)
              || ("https".equals(req.getScheme()) && port == 443);
      return req.getScheme() + "://" + req.getServerName() + (standard ? "" : ":" + port);
    }

    @Override
    public String mountPath() {
      return req.getContextPath() + req.getServletPath();
    }

    @Override
    public void respond(int status, Map<String, String> headers, byte[] body) throws IOException {
      resp.setStatus(status);
      headers.forEach(resp::setHeader);
      resp.setContentLength(body.length);
      if (!"HEAD".equals(req.getMethod())) {
        try (OutputStream out = resp.getOutputStream()) {
          out.write(body);
        }
      }
    }
  }
}
