package dev.outboxkit.samples.servlet;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Serves the relay's meters to a Prometheus scrape ({@code GET}, the text exposition format 0.0.4),
 * from the registry {@link OutboxRelayListener} publishes. No framework, no second port: map it in
 * {@code web.xml}, and in production keep it from the public (a {@code security-constraint}, or a
 * path only the monitoring network reaches).
 */
public final class MetricsServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  /** The content type of Prometheus' text format. */
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  /** Creates the servlet; the container calls this. */
  public MetricsServlet() {}

  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    PrometheusMeterRegistry registry =
        (PrometheusMeterRegistry)
            getServletContext().getAttribute(OutboxRelayListener.METRICS_ATTRIBUTE);
    if (registry == null) {
      response.sendError(
          HttpServletResponse.SC_SERVICE_UNAVAILABLE, "the outbox relay is not running");
      return;
    }
    response.setContentType(CONTENT_TYPE);
    response.getWriter().write(registry.scrape());
  }
}
