package dev.outboxkit.testkit.logging;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.simple.SimpleLoggerFactory;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The slf4j provider of test JVMs that need more than slf4j-simple: its file logging unchanged
 * (target/test.log, levels from simplelogger.properties), plus a working MDC (slf4j-simple's own
 * provider ignores the MDC) and {@link LogCapture}. A module selects it in Surefire's
 * systemPropertyVariables: {@code
 * slf4j.provider=dev.outboxkit.testkit.logging.CapturingLoggerProvider}.
 */
public final class CapturingLoggerProvider implements SLF4JServiceProvider {
  private final IMarkerFactory markers = new BasicMarkerFactory();
  private final MDCAdapter mdc = new BasicMDCAdapter();
  private ILoggerFactory loggers;

  /** Called by slf4j's service loader. */
  public CapturingLoggerProvider() {}

  @Override
  public ILoggerFactory getLoggerFactory() {
    return loggers;
  }

  @Override
  public IMarkerFactory getMarkerFactory() {
    return markers;
  }

  @Override
  public MDCAdapter getMDCAdapter() {
    return mdc;
  }

  @Override
  public String getRequestedApiVersion() {
    return "2.0.99";
  }

  @Override
  public void initialize() {
    SimpleLoggerFactory file = new SimpleLoggerFactory();
    Map<String, Logger> cache = new ConcurrentHashMap<>();
    loggers = name -> cache.computeIfAbsent(name, n -> new CapturingLogger(n, file.getLogger(n)));
  }
}
