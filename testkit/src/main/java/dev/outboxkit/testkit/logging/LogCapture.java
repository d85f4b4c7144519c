package dev.outboxkit.testkit.logging;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Everything logged, at every level, while a capture is open: the test's window on what the relay
 * and the transport would write to an operator's log, whatever level the file log is set to.
 */
public final class LogCapture implements AutoCloseable {
  private static volatile LogCapture open;

  /** One logged line: logger, level, the formatted message with any stack trace, and the MDC. */
  public record Line(String logger, String level, String text, Map<String, String> mdc) {}

  private final List<Line> lines = new ArrayList<>();

  private LogCapture() {}

  /** Starts capturing; close to stop. One capture at a time. */
  public static synchronized LogCapture start() {
    if (open != null) {
      throw new IllegalStateException("a log capture is already open");
    }
    open = new LogCapture();
    return open;
  }

  static LogCapture current() {
    return open;
  }

  synchronized void add(Line line) {
    lines.add(line);
  }

  /** The lines captured so far. */
  public synchronized List<Line> lines() {
    return List.copyOf(lines);
  }

  @Override
  public void close() {
    synchronized (LogCapture.class) {
      open = null;
    }
  }
}
