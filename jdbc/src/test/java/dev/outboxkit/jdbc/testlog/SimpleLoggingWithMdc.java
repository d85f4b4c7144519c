package dev.outboxkit.jdbc.testlog;

import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.simple.SimpleLoggerFactory;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * slf4j-simple's logging (to target/test.log) with a working MDC: slf4j-simple's own provider
 * ignores the MDC, and the MDC tests need one. Chosen with {@code -Dslf4j.provider} in this
 * module's Surefire configuration.
 */
public final class SimpleLoggingWithMdc implements SLF4JServiceProvider {
  private ILoggerFactory loggers;
  private final IMarkerFactory markers = new BasicMarkerFactory();
  private final MDCAdapter mdc = new BasicMDCAdapter();

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
    loggers = new SimpleLoggerFactory();
  }
}
