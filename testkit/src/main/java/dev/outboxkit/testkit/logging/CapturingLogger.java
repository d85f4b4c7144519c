package dev.outboxkit.testkit.logging;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.MDC;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/**
 * Logs through slf4j-simple as before (to target/test.log, at its configured levels) and, while a
 * {@link LogCapture} is open, also records every call at every level, formatted as an appender
 * would format it (message, arguments, stack trace).
 */
final class CapturingLogger extends LegacyAbstractLogger {
  private static final long serialVersionUID = 1L;

  private final transient Logger file;

  CapturingLogger(String name, Logger file) {
    this.name = name;
    this.file = file;
  }

  @Override
  public boolean isTraceEnabled() {
    return LogCapture.current() != null || file.isTraceEnabled();
  }

  @Override
  public boolean isDebugEnabled() {
    return LogCapture.current() != null || file.isDebugEnabled();
  }

  @Override
  public boolean isInfoEnabled() {
    return LogCapture.current() != null || file.isInfoEnabled();
  }

  @Override
  public boolean isWarnEnabled() {
    return LogCapture.current() != null || file.isWarnEnabled();
  }

  @Override
  public boolean isErrorEnabled() {
    return LogCapture.current() != null || file.isErrorEnabled();
  }

  @Override
  protected String getFullyQualifiedCallerName() {
    return null;
  }

  @Override
  protected void handleNormalizedLoggingCall(
      Level level, Marker marker, String pattern, Object[] args, Throwable t) {
    String message = MessageFormatter.basicArrayFormat(pattern, args);
    LogCapture capture = LogCapture.current();
    if (capture != null) {
      StringBuilder text = new StringBuilder(message == null ? "null" : message);
      if (t != null) {
        StringWriter trace = new StringWriter();
        t.printStackTrace(new PrintWriter(trace));
        text.append('\n').append(trace);
      }
      Map<String, String> mdc = MDC.getCopyOfContextMap();
      capture.add(
          new LogCapture.Line(name, level.name(), text.toString(), mdc == null ? Map.of() : mdc));
    }
    if (file.isEnabledForLevel(level)) {
      file.atLevel(level).setCause(t).log(message);
    }
  }
}
