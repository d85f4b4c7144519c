package dev.outboxkit.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * Server distributions (a Tomcat, a Payara) that a test unpacks from their Maven Central zip and
 * starts as processes of their own, as operations would.
 */
public final class Distributions {
  private Distributions() {}

  /**
   * Unpacks a distribution's zip into a new directory under {@code target/}, without the one
   * top-level directory every such zip has ({@code apache-tomcat-9.0.117/}, {@code payara5/}).
   * Files under a {@code bin/} directory are made executable: a zip keeps no file modes.
   *
   * @param zip the distribution
   * @param prefix the start of the new directory's name
   * @return the new directory, the distribution's home
   * @throws IOException if it cannot be read or written
   */
  public static Path unpack(Path zip, String prefix) throws IOException {
    Path home = Files.createTempDirectory(Path.of("target"), prefix).toAbsolutePath();
    try (ZipInputStream in = new ZipInputStream(Files.newInputStream(zip))) {
      for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
        String name = e.getName().substring(e.getName().indexOf('/') + 1);
        if (name.isEmpty()) {
          continue;
        }
        Path out = home.resolve(name).normalize();
        if (!out.startsWith(home)) {
          throw new IOException("zip entry outside the target: " + e.getName());
        }
        if (e.isDirectory()) {
          Files.createDirectories(out);
        } else {
          Files.createDirectories(out.getParent());
          Files.copy(in, out, StandardCopyOption.REPLACE_EXISTING);
          if (out.getParent().getFileName().toString().equals("bin")) {
            out.toFile().setExecutable(true);
          }
        }
      }
    }
    return home;
  }

  /**
   * Deletes a directory tree.
   *
   * @param dir the directory
   * @throws IOException if a file cannot be deleted
   */
  public static void delete(Path dir) throws IOException {
    List<Path> paths;
    try (Stream<Path> walk = Files.walk(dir)) {
      paths = walk.sorted(Comparator.reverseOrder()).collect(Collectors.toList());
    }
    for (Path p : paths) {
      Files.delete(p);
    }
  }
}
