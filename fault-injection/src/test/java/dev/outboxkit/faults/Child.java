package dev.outboxkit.faults;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * What the child mains share: their protocol output, their options, and a watchdog.
 *
 * <p>Protocol lines go straight to file descriptor 1 with one {@code write} each, unbuffered: when
 * the parent SIGKILLs the child right after a line, the line is in the file. Each starts with the
 * wall-clock time in epoch millis, which parent and children share (one host).
 */
final class Child {
  private static final FileOutputStream OUT = new FileOutputStream(FileDescriptor.out);

  private Child() {}

  /** Writes one protocol line: {@code <epoch millis> <text>}. */
  static void emit(String text) {
    byte[] line = (System.currentTimeMillis() + " " + text + "\n").getBytes(StandardCharsets.UTF_8);
    synchronized (OUT) {
      try {
        OUT.write(line);
      } catch (IOException e) {
        Runtime.getRuntime().halt(3); // the parent cannot follow us any more
      }
    }
  }

  /**
   * Exits the JVM when stdin closes: the parent holds the other end of the pipe, so a parent that
   * dies without killing its child (a crashed Surefire fork) takes the child with it.
   */
  static void exitWithParent() {
    Thread t =
        new Thread(
            () -> {
              try {
                InputStream in = System.in;
                while (in.read() >= 0) {
                  // the parent never writes; keep reading until EOF
                }
              } catch (IOException e) {
                // treated like EOF
              }
              Runtime.getRuntime().halt(2);
            },
            "parent-watchdog");
    t.setDaemon(true);
    t.start();
  }

  /** Announces a pause point and blocks there until the parent kills the process. */
  static void pauseForKill(String what) {
    emit("PAUSED " + what);
    while (true) {
      try {
        Thread.sleep(60_000);
      } catch (InterruptedException e) {
        // Not expected (the parent kills us within milliseconds); keep the pause.
      }
    }
  }

  /** Parses {@code --key=value} arguments. */
  static Map<String, String> options(String[] args) {
    Map<String, String> options = new HashMap<>();
    for (String a : args) {
      if (!a.startsWith("--") || a.indexOf('=') < 0) {
        throw new IllegalArgumentException("expected --key=value, got " + a);
      }
      options.put(a.substring(2, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
    }
    return options;
  }

  /** A required option. */
  static String required(Map<String, String> options, String key) {
    String value = options.get(key);
    if (value == null) {
      throw new IllegalArgumentException("missing --" + key);
    }
    return value;
  }
}
