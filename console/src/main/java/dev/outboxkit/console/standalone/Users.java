package dev.outboxkit.console.standalone;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * The standalone console's users, from a file of lines {@code name:roles:hash}: roles are a
 * comma-separated subset of {@code view}, {@code operate}, {@code payloads}; the hash is what
 * {@code StandaloneConsole --hash-password} prints (PBKDF2 with HMAC-SHA256, salted). Lines
 * starting with {@code #} and blank lines are skipped.
 */
final class Users {
  static final Set<String> ROLES = Set.of("view", "operate", "payloads");
  private static final int ITERATIONS = 120_000;

  /** A user of the file. */
  static final class User {
    final String name;
    final Set<String> roles;
    private final String hash;

    User(String name, Set<String> roles, String hash) {
      this.name = name;
      this.roles = roles;
      this.hash = hash;
    }
  }

  private final Map<String, User> byName;

  private Users(Map<String, User> byName) {
    this.byName = byName;
  }

  /**
   * {@return the users of a file}
   *
   * @throws IllegalArgumentException naming the line that is not {@code name:roles:hash}
   */
  static Users read(Path file) throws IOException {
    Map<String, User> users = new HashMap<>();
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).trim();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] parts = line.split(":", 3);
      if (parts.length != 3 || parts[0].isEmpty() || !parts[2].startsWith("pbkdf2-sha256$")) {
        throw new IllegalArgumentException(
            file
                + " line "
                + (i + 1)
                + ": expected name:roles:hash, the hash as"
                + " --hash-password prints it");
      }
      Set<String> roles = new LinkedHashSet<>(Arrays.asList(parts[1].split(",")));
      roles.remove("");
      if (!ROLES.containsAll(roles)) {
        throw new IllegalArgumentException(
            file + " line " + (i + 1) + ": roles are view, operate and payloads, was " + parts[1]);
      }
      users.put(parts[0], new User(parts[0], Collections.unmodifiableSet(roles), parts[2]));
    }
    if (users.isEmpty()) {
      throw new IllegalArgumentException(file + " has no users: nobody could sign in");
    }
    return new Users(users);
  }

  /** {@return the user with this name and password, or null} */
  User authenticate(String name, String password) {
    User u = byName.get(name);
    if (u == null) {
      // Same work for an unknown name, so timing does not tell which names exist.
      verify("pbkdf2-sha256$" + ITERATIONS + "$AAAAAAAAAAAAAAAAAAAAAA$AAAA", password);
      return null;
    }
    return verify(u.hash, password) ? u : null;
  }

  static String hash(char[] password) {
    byte[] salt = new byte[16];
    new SecureRandom().nextBytes(salt);
    Base64.Encoder b64 = Base64.getEncoder().withoutPadding();
    return "pbkdf2-sha256$"
        + ITERATIONS
        + "$"
        + b64.encodeToString(salt)
        + "$"
        + b64.encodeToString(derive(password, salt, ITERATIONS));
  }

  private static boolean verify(String hash, String password) {
    String[] p = hash.split("\\$");
    if (p.length != 4) {
      return false;
    }
    try {
      int iterations = Integer.parseInt(p[1]);
      byte[] salt = Base64.getDecoder().decode(p[2]);
      byte[] expected = Base64.getDecoder().decode(p[3]);
      return MessageDigest.isEqual(expected, derive(password.toCharArray(), salt, iterations));
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static byte[] derive(char[] password, byte[] salt, int iterations) {
    try {
      PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, 256);
      return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("PBKDF2WithHmacSHA256 is missing from this JDK", e);
    }
  }
}
